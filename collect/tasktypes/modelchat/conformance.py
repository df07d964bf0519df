"""The model-chat report over the conversations the exporter wrote (collect/exporters/hf.py): per
arm (each model, and the human control), conversations, turns, reply length, the final questions'
mean answers and the share of model turns labelled with a problem. A human evaluation has no
original dataset to conform to: nothing is compared with a published figure; the human control arm
is the reference to read the models' figures against.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from statistics import median
from typing import Any

from collect.exporters.hf import Figure
from collect.exporters.textstats import mean, words
from collect.tasktypes.modelchat.config import NONE_LABEL
from collect.tasktypes.modelchat.exporter import FILE
from collect.tasktypes.modelchat.hf import read_records


def conformance(json_dir: Path) -> list[Figure]:
    return figures(read_records(json_dir / FILE))


def figures(records: list[dict[str, Any]]) -> list[Figure]:
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_model[record["model"]].append(record)
    out = [Figure("conversations", len(records), digits=0)]
    for model, group in sorted(by_model.items()):
        partner = [t for r in group for t in r["dialog"] if t["speaker"] == "model"]
        labelled = [t for t in partner if t.get("problems") is not None]
        latencies = [t["latency_ms"] for t in partner if t.get("latency_ms") is not None]
        out += [
            Figure(f"{model}: conversations", len(group), digits=0),
            Figure(f"{model}: turns per conversation", mean(len(r["dialog"]) for r in group), digits=1),
            Figure(f"{model}: words per partner turn", mean(len(words(t["text"])) for t in partner), digits=1),
        ]
        questions = sorted({q for r in group for q in (r.get("ratings") or {})})
        out += [Figure(f"{model}: mean {q}", mean(r["ratings"][q] for r in group if q in (r.get("ratings") or {}))) for q in questions]
        if labelled:
            out.append(Figure(f"{model}: share of labelled turns with a problem", sum(1 for t in labelled if set(t["problems"]) - {NONE_LABEL}) / len(labelled)))
        if latencies:
            out.append(Figure(f"{model}: median latency (ms)", median(latencies), digits=0))
    return out
