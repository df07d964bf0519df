"""The Curiosity conformance report: the collected dialogs' statistics beside the ones Rodriguez et al.
(2020) published, over the four split files the exporter wrote (collect/exporters/hf.py).

The paper's abstract gives the size, "14K dialogs (181K utterances)", rounded to the thousand: the
utterances per dialog it implies (12.9) is shown as the published figure. Where the sources read here
give no figure (words per message, likes, facts used, dialog-act shares, ratings) the report shows the
collection's alone, rather than a number nobody printed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from collect.exporters.hf import Figure
from collect.exporters.textstats import distinct_n, mean, words
from collect.tasktypes.curiosity.exporter import FILES, SPLITS
from collect.tasktypes.curiosity.hf import DIALOG_ACTS

# Rodriguez et al., 2020, "Information Seeking in the Spirit of Learning: A Dataset for Conversational
# Curiosity" (EMNLP), abstract: "14K dialogs (181K utterances)".
PUBLISHED_DIALOGS = 14_000
PUBLISHED_UTTERANCES = 181_000
SOURCE = "Rodriguez et al. 2020 (EMNLP), abstract: 14K dialogs, 181K utterances (rounded)"


def conformance(json_dir: Path) -> list[Figure]:
    dialogs = [d for split in SPLITS for d in json.loads((json_dir / FILES[split]).read_text(encoding="utf-8"))["dialogs"]]
    return figures(dialogs)


def figures(dialogs: list[dict[str, Any]]) -> list[Figure]:
    messages = [m for d in dialogs for m in d["messages"]]
    user = [m for m in messages if m["sender"] == "user"]
    assistant = [m for m in messages if m["sender"] == "assistant"]
    labeled = [m for m in messages if m.get("dialog_acts")]
    acts = Counter(act for m in labeled for act in m["dialog_acts"])
    texts = [m["message"] for m in messages]
    out = [
        Figure("dialogs", len(dialogs), digits=0),
        Figure("utterances per dialog", mean(len(d["messages"]) for d in dialogs), PUBLISHED_UTTERANCES / PUBLISHED_DIALOGS, SOURCE, digits=1),
        Figure("topics", len({d["focus_entity"] for d in dialogs}), digits=0),
        Figure("words per utterance", mean(len(words(t)) for t in texts)),
        Figure("words per user message", mean(len(words(m["message"])) for m in user)),
        Figure("words per assistant message", mean(len(words(m["message"])) for m in assistant)),
        Figure("liked assistant messages per dialog", mean(sum(1 for m in d["messages"] if m["sender"] == "assistant" and m["liked"]) for d in dialogs)),
        Figure("share of assistant messages liked", sum(1 for m in assistant if m["liked"]) / len(assistant) if assistant else None),
        Figure("facts used per dialog", mean(sum(1 for m in d["messages"] for f in m.get("facts") or [] if f.get("used")) for d in dialogs)),
        Figure("share of assistant messages using a fact", sum(1 for m in assistant if any(f.get("used") for f in m.get("facts") or [])) / len(assistant) if assistant else None),
        Figure("distinct-1", distinct_n(texts, 1), digits=3),
        Figure("distinct-2", distinct_n(texts, 2), digits=3),
        Figure("share of messages with dialog acts", len(labeled) / len(messages) if messages else None),
        Figure("user's rating of the dialog (1–5)", mean(d["user_dialog_rating"] for d in dialogs if d.get("user_dialog_rating") is not None)),
        Figure("assistant's rating of the dialog (1–5)", mean(d["assistant_dialog_rating"] for d in dialogs if d.get("assistant_dialog_rating") is not None)),
    ]
    if labeled:
        out += [Figure(f"dialog act share: {act}", acts[act] / len(labeled), digits=3) for act in DIALOG_ACTS]
    return out
