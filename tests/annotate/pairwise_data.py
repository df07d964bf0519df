"""Conversations of three models for the pairwise tests, in the import file's format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MODELS = ("kb_bot", "retrieval_bot", "baseline")


def conversation(model: str, n: int, *, speaker: str = "model") -> dict[str, Any]:
    return {
        "id": f"{model}-{n}",
        "model": model,
        "topic": f"Topic {n}",
        "seen": n % 2 == 0,
        "speaker": speaker,
        "dialog": [
            {"speaker": "human", "text": f"Hi, tell me about topic {n}."},
            {"speaker": speaker, "text": f"{model} says something about topic {n}."},
            {"speaker": "human", "text": "Interesting, go on."},
            {"speaker": speaker, "text": f"{model} goes on."},
        ],
    }


def conversations(per_model: int = 2) -> list[dict[str, Any]]:
    return [conversation(model, n) for model in MODELS for n in range(per_model)]


def check_pair(n: int, winner: str = "a") -> dict[str, Any]:
    good = conversation("human", 100 + n, speaker="wizard")
    bad = conversation("broken", 100 + n)
    bad["dialog"][1]["text"] = bad["dialog"][3]["text"] = "I I I I I I"
    return {"a": good, "b": bad, "winner": "a"} if winner == "a" else {"a": bad, "b": good, "winner": "b"}


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
