"""A small FaithDial file written here in the released format (McGill-NLP/FaithDial README, "Data
Format"): two dialogues, one utterance already edited and labeled, one with the optional fields
left out, non-ASCII text included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CONCERT = "It began on September 9, 2015, in Montreal, Canada, at the Bell Centre and concluded on March 20, 2016, in Sydney, Australia."


def sample() -> list[dict[str, Any]]:
    return [
        {
            "utterances": [
                {
                    "history": ["Have you ever been to a concert? They're so fun!"],
                    "speaker": "Wizard",
                    "knowledge": "Madonna's Rebel Heart Tour was her tenth concert tour.",
                    "original_response": "No, but Madonna's tenth tour was amazing, I saw it twice.",
                    "response": "No, I cannot as a bot. But Madonna's tenth concert tour was the Rebel Heart Tour.",
                    "BEGIN": ["Hallucination", "Entailment"],
                    "VRM": ["Disclosure", "Edification"],
                },
                {
                    "history": [
                        "Have you ever been to a concert? They're so fun!",
                        "No, I cannot as a bot. But Madonna's tenth concert tour was the Rebel Heart Tour.",
                        "Can you tell me more about it?",
                    ],
                    "speaker": "Wizard",
                    "knowledge": CONCERT,
                    "original_response": None,
                    "response": "It started in September 2015 and ran all the way through March 2016. Can you imagine being on the road that long?",
                    "BEGIN": [],
                    "VRM": [],
                },
            ]
        },
        {
            "utterances": [
                {
                    "history": ["J'adore le café — do you?"],
                    "speaker": "Wizard",
                    "knowledge": "Coffee is a brewed drink prepared from roasted coffee beans.",
                    "response": "I drink five cups a day, it comes from Brazil only.",
                }
            ]
        },
    ]


def write(path: Path, dialogues: list[dict[str, Any]] | None = None) -> Path:
    """As the release's files are written (annotate.kinds.faithdial.released.dumps)."""
    path.write_text(json.dumps(sample() if dialogues is None else dialogues, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
