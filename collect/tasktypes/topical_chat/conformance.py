"""The Topical-Chat conformance report: the collected conversations' statistics beside those the
release publishes (alexa/Topical-Chat README, "Data Statistics", column All), over the
conversation files the exporter wrote (collect/exporters/hf.py).

The release counts an utterance's length in tokens without saying how it tokenizes; words here are
collect/exporters/textstats.py's, so that row compares like with nearly like, not exactly.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from collect.exporters.hf import Figure
from collect.exporters.textstats import distinct_n, mean, words
from collect.tasktypes.topical_chat.files import conversations_path
from collect.tasktypes.topical_chat.release import SPLITS

# alexa/Topical-Chat, README.md "Data Statistics" (Gopalakrishnan et al., 2019), column All:
# 10,784 conversations, 235,281 utterances, 21.8 turns per conversation, utterances 19.6 long.
SOURCE = "Topical-Chat release README, Data Statistics (All)"
PUBLISHED_TURNS = 21.8
PUBLISHED_LENGTH = 19.6
PERSONAL = "Personal Knowledge"


def conformance(json_dir: Path) -> list[Figure]:
    records = [r for split in SPLITS for r in json.loads(conversations_path(json_dir, split).read_text(encoding="utf-8")).values()]
    return figures(records)


def figures(records: list[dict[str, Any]]) -> list[Figure]:
    turns = [t for r in records for t in r["content"]]
    texts = [t["message"] for t in turns]
    sentiments = Counter(t["sentiment"] for t in turns if t["sentiment"])
    grounded = [t for t in turns if any(k != PERSONAL for k in t["knowledge_source"])]
    out = [
        Figure("conversations", len(records), digits=0),
        Figure("turns per conversation", mean(len(r["content"]) for r in records), PUBLISHED_TURNS, SOURCE, digits=1),
        Figure("words per utterance", mean(len(words(t)) for t in texts), PUBLISHED_LENGTH, SOURCE + " (tokens)", digits=1),
        Figure("share of turns drawing on the reading set", len(grounded) / len(turns) if turns else None),
        Figure("share of turns on personal knowledge only", sum(1 for t in turns if t["knowledge_source"] == [PERSONAL]) / len(turns) if turns else None),
        Figure("distinct-1", distinct_n(texts, 1), digits=3),
        Figure("distinct-2", distinct_n(texts, 2), digits=3),
    ]
    labelled = sum(sentiments.values())
    out += [Figure(f"sentiment share: {name}", n / labelled, digits=3) for name, n in sorted(sentiments.items())]
    return out
