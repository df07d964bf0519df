"""The pairwise judgments as a config of model chat's Hugging Face export (collect/exporters/hf.py):
`modelchat_pairwise_judgments.jsonl`, written beside the conversations (exporter.py), becomes the
config `pairwise_judgments`, one row per judgment, the winner and the side shown left class labels.
`conversation_a`/`_b` are the `conversation_id`s of the default config's rows."""

from __future__ import annotations

import json
from pathlib import Path

from datasets import ClassLabel, Features, Value

from annotate.kinds.pairwise.exporter import FILE
from collect.exporters.hf import HfConfig

CONFIG = "pairwise_judgments"
WINNERS = ("model_a", "model_b")
SIDES = ("a", "b")

FEATURES = Features({
    **{key: Value("string") for key in ("job", "question", "item", "model_a", "model_b", "conversation_a", "conversation_b")},
    "winner": ClassLabel(names=list(WINNERS)),
    "shown_left": ClassLabel(names=list(SIDES)),
    "reason": Value("string"),
    "worker": Value("string"),
    "time_spent_ms": Value("int64"),
    "counted": Value("bool"),
})


def judgments_hf(json_dir: Path) -> HfConfig | None:
    path = json_dir / FILE
    if not path.exists():
        return None
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            rows.append({
                **record,
                "item": str(record["item"]),
                "conversation_a": str(record["conversation_a"]),
                "conversation_b": str(record["conversation_b"]),
                "winner": WINNERS.index(record["winner"]),
                "shown_left": SIDES.index(record["shown_left"]),
            })
    description = (
        "ACUTE-Eval style pairwise judgments of these conversations: which of two models' conversations an "
        "annotator preferred, and why (`counted` is false for annotators left out for failing check pairs)."
    )
    return HfConfig(name=CONFIG, features=FEATURES, rows=rows, description=description)
