"""The Wizard of Internet conformance report over the three files the exporter wrote
(collect/exporters/hf.py). No statistic of the release was found printed where it could be cited
(Komeili et al., 2022), so the report gives the collection's own figures, to compare between pilots
or with the release's files: turns, searches, and how the wizard used what was found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from collect.exporters.hf import Figure
from collect.exporters.textstats import distinct_n, mean, words
from collect.tasktypes.woi.hf import read_lines
from collect.tasktypes.woi.layout import APPRENTICE_TO_WIZARD, FILES, HISTORY, WIZARD_TO_APPRENTICE, WIZARD_TO_SEARCH


def conformance(json_dir: Path) -> list[Figure]:
    return figures([d for file in FILES for line in read_lines(json_dir / file) for d in line.values()])


def _used_sentence(entry: dict[str, Any]) -> bool:
    selected = (entry.get("context") or {}).get("selected_contents") or []
    return any(any(row) for row in selected[1:])


def figures(dialogues: list[dict[str, Any]]) -> list[Figure]:
    history = [e for d in dialogues for e in d[HISTORY]]
    replies = [e for e in history if e["action"] == WIZARD_TO_APPRENTICE]
    messages = [e["text"] for e in history if e["action"] in (APPRENTICE_TO_WIZARD, WIZARD_TO_APPRENTICE)]
    return [
        Figure("dialogues", len(dialogues), digits=0),
        Figure("turns per dialogue", mean(sum(1 for e in d[HISTORY] if e["action"] in (APPRENTICE_TO_WIZARD, WIZARD_TO_APPRENTICE)) for d in dialogues), digits=1),
        Figure("searches per dialogue", mean(sum(1 for e in d[HISTORY] if e["action"] == WIZARD_TO_SEARCH) for d in dialogues), digits=1),
        Figure("words per utterance", mean(len(words(t)) for t in messages)),
        Figure("words per wizard reply", mean(len(words(e["text"])) for e in replies)),
        Figure("share of wizard replies using a found sentence", sum(map(_used_sentence, replies)) / len(replies) if replies else None),
        Figure("distinct-1", distinct_n(messages, 1), digits=3),
        Figure("distinct-2", distinct_n(messages, 2), digits=3),
    ]
