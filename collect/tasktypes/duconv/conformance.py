"""The DuConv conformance report: the collected sessions' statistics beside the ones Wu et al. (2019)
published, over the three files the exporter wrote (collect/exporters/hf.py).

The abstract gives the size, "about 270K utterances and 30k dialogues": the utterances per session it
implies (9.0) is the published figure shown. Text is Chinese and mostly unsegmented, so lengths and
distinct-n count characters (spaces left out). Goal completion is the competition's 0–2 scale
(collect.tasktypes.duconv.completion) computed from the text, as for a session without the agent's
marks: the JSON files carry none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from collect.exporters.hf import Figure
from collect.exporters.textstats import mean
from collect.tasktypes.duconv.completion import goal_completion
from collect.tasktypes.duconv.exporter import SPLITS
from collect.tasktypes.duconv.hf import read_sessions

# Wu et al., 2019, "Proactive Human-Machine Conversation with Explicit Conversation Goals" (ACL),
# abstract: "about 270K utterances and 30k dialogues".
PUBLISHED_SESSIONS = 30_000
PUBLISHED_UTTERANCES = 270_000
SOURCE = "Wu et al. 2019 (ACL), abstract: about 270K utterances and 30k dialogues"


def conformance(json_dir: Path) -> list[Figure]:
    return figures([s for split in SPLITS for s in read_sessions(json_dir / f"{split}.txt")])


def characters(text: str) -> list[str]:
    return [c for c in text if not c.isspace()]


def distinct_characters(texts: list[str], n: int) -> float | None:
    grams = [tuple(chars[i:i + n]) for t in texts for chars in [characters(t)] for i in range(len(chars) - n + 1)]
    return len(set(grams)) / len(grams) if grams else None


def figures(sessions: list[dict[str, Any]]) -> list[Figure]:
    texts = [u for s in sessions for u in s["conversation"]]
    agent = [u for s in sessions for u in s["conversation"][0::2]]
    completion = [goal_completion(s["goal"], s["knowledge"], s["conversation"]) for s in sessions]
    return [
        Figure("sessions", len(sessions), digits=0),
        Figure("utterances per session", mean(len(s["conversation"]) for s in sessions), PUBLISHED_UTTERANCES / PUBLISHED_SESSIONS, SOURCE, digits=1),
        Figure("topic pairs", len({tuple(s["goal"][0][1:3]) for s in sessions if s["goal"]}), digits=0),
        Figure("knowledge triples per session", mean(len(s["knowledge"]) for s in sessions), digits=1),
        Figure("characters per utterance", mean(len(characters(t)) for t in texts), digits=1),
        Figure("characters per agent utterance", mean(len(characters(t)) for t in agent), digits=1),
        Figure("distinct-1 (characters)", distinct_characters(texts, 1), digits=3),
        Figure("distinct-2 (characters)", distinct_characters(texts, 2), digits=3),
        Figure("goal completion (0–2)", mean(completion)),
        Figure("share of sessions with goal completion 2", completion.count(2) / len(completion) if completion else None),
    ]
