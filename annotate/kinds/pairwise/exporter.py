"""The pairwise judgments of model-chat campaigns, written beside `export_dataset modelchat`'s
conversations as JSON Lines (modelchat_pairwise_judgments.jsonl), one judgment per line:

    {"job", "question", "item", "model_a", "model_b", "conversation_a", "conversation_b",
     "winner": "model_a"|"model_b", "shown_left": "a"|"b", "reason", "worker", "time_spent_ms",
     "counted": bool}

`conversation_a`/`_b` are the conversations' `conversation_id`s; `counted` is false for annotators
left out of the results for failing the check pairs. The file reads directly into `rank_models`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from annotate.kinds.pairwise.selectors import campaign_pair_judgments

FILE = "modelchat_pairwise_judgments.jsonl"


def write_pair_judgments(out_dir: Path, *, campaigns: list[str]) -> int:
    records = campaign_pair_judgments(campaigns=campaigns)
    temp = out_dir / f".{FILE}.{os.getpid()}.tmp"
    try:
        with temp.open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        temp.replace(out_dir / FILE)
    finally:
        temp.unlink(missing_ok=True)
    return len(records)


def companion_write(out_dir: Path, campaigns: list[str]) -> tuple[str, int]:
    """The model-chat export's companion (collect.exporters.labels): the file's name, judgments written."""
    return FILE, write_pair_judgments(out_dir, campaigns=campaigns)
