"""The Wizard of Wikipedia conformance report: the collected dialogues' statistics beside the ones
Dinan et al. (2019) published, over the five files the exporter wrote (collect/exporters/hf.py).

Published figures are only those printed in the paper: where it gives none (words per utterance,
the share of "no sentence used", distinct-n, overlap with the checked sentence, the apprentices'
ratings of human wizards) the report shows the collection's figure alone. Words and distinct-n are
counted as collect/exporters/textstats.py defines them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from collect.exporters.hf import Figure
from collect.exporters.textstats import distinct_n, mean, unigram_f1, words
from collect.tasktypes.wow.exporter import FILES, NO_PASSAGES_USED

# Dinan et al., 2019, "Wizard of Wikipedia: Knowledge-Powered Conversational Agents" (ICLR), the
# dataset section and its Table 1: "22,311 dialogues with 201,999 turns".
PUBLISHED_DIALOGUES = 22_311
PUBLISHED_TURNS = 201_999
SOURCE = "Dinan et al. 2019 (ICLR), the dataset section and Table 1: 201,999 turns in 22,311 dialogues"


def conformance(json_dir: Path) -> list[Figure]:
    dialogues = [d for file in FILES for d in json.loads((json_dir / file).read_text(encoding="utf-8"))]
    return figures(dialogues)


def figures(dialogues: list[dict[str, Any]]) -> list[Figure]:
    turns = [turn for d in dialogues for turn in d["dialog"]]
    wizard = [turn for turn in turns if turn["speaker"].endswith("_Wizard")]
    apprentice = [turn for turn in turns if turn["speaker"].endswith("_Apprentice")]
    checked = [turn for turn in wizard if _sentence(turn) is not None]
    ratings = [d["wizard_eval"] for d in dialogues if d["wizard_eval"] >= 1]
    texts = [turn["text"] for turn in turns]
    return [
        Figure("dialogues", len(dialogues), digits=0),
        Figure("turns per dialogue", mean(len(d["dialog"]) for d in dialogues), PUBLISHED_TURNS / PUBLISHED_DIALOGUES, SOURCE),
        Figure("topics", len({d["chosen_topic"] for d in dialogues}), digits=0),
        Figure("words per utterance", mean(len(words(t)) for t in texts)),
        Figure("words per wizard utterance", mean(len(words(t["text"])) for t in wizard)),
        Figure("words per apprentice utterance", mean(len(words(t["text"])) for t in apprentice)),
        Figure("share of wizard turns with a checked sentence", len(checked) / len(wizard) if wizard else None),
        Figure("share of wizard turns with no sentence used", (len(wizard) - len(checked)) / len(wizard) if wizard else None),
        Figure("distinct-1", distinct_n(texts, 1), digits=3),
        Figure("distinct-2", distinct_n(texts, 2), digits=3),
        Figure("knowledge use: unigram F1 of a wizard reply with its checked sentence", mean(unigram_f1(t["text"], _sentence(t) or "") for t in checked), digits=3),
        Figure("apprentice's rating of the wizard (1–5)", mean(ratings)),
    ]


def _sentence(turn: dict[str, Any]) -> str | None:
    """The checked sentence's text, or None for "no sentence used"."""
    (key, text), = turn["checked_sentence"].items()
    return None if key == NO_PASSAGES_USED else text
