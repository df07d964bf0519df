"""Model chat as a Hugging Face `datasets` config (`export_dataset modelchat --format hf`): one row
per conversation of `modelchat_conversations.jsonl`, in one split (`train`: the file has no split),
with the evaluator's answers as (question, value) pairs, and each turn's speaker a class label
(human, model). What only some campaigns have (several models side by side: `prism` and each turn's
`candidates` and `choice`; the DuConv variant: `goal`, `knowledge`, `goal_completion`) goes into
`extra` as JSON, on the conversation or the turn. Pairwise judgments written beside the conversations
are a config of their own, which the pairwise kind registers (collect.registry.hf_companion_register). `record_from_row` gives the JSON line back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import ClassLabel, Features, List, Value

from collect.exporters import ExportResult
from collect.exporters.hf import CardFacts, HfDataset
from collect.tasktypes.modelchat.exporter import FILE

SPEAKERS = ("human", "model")
SPLIT = "train"
_RECORD = ("conversation_id", "campaign", "model", "arm", "topic", "seen", "persona", "worker", "status", "created")
_TURN = ("id", "text", "problems", "latency_ms", "error", "checked_sentence", "knowledge_used")

FEATURES = Features({
    **{key: Value("bool") if key == "seen" else Value("string") for key in _RECORD},
    "ratings": List({"question": Value("string"), "value": Value("int32")}),
    "dialog": List({
        "id": Value("string"),
        "speaker": ClassLabel(names=list(SPEAKERS)),
        "text": Value("string"),
        "problems": List(Value("string")),
        "latency_ms": Value("int64"),
        "error": Value("string"),
        "checked_sentence": Value("string"),
        "knowledge_used": List(Value("int64")),
        "extra": Value("string"),
    }),
    "extra": Value("string"),
})

CITATION = """@inproceedings{smith2022human,
  title = {Human Evaluation of Conversations is an Open Problem: comparing the sensitivity of various methods for evaluating dialogue agents},
  author = {Smith, Eric Michael and Hsu, Orion and Qian, Rebecca and Roller, Stephen and Boureau, Y-Lan and Weston, Jason},
  booktitle = {Proceedings of the 4th Workshop on NLP for Conversational AI},
  year = {2022},
  url = {https://aclanthology.org/2022.nlp4convai-1.8}
}"""

CARD = CardFacts(
    pretty_name="Model-chat human evaluations (Groundwork collection)",
    summary="Conversations between crowdworkers and dialogue models under evaluation, with the workers' ratings.",
    protocol=(
        "A worker talks with a model (or, in the control arm, a person) about a topic, labels problems in "
        "the model's turns where the campaign asks, and answers the final questions (`ratings`). Each "
        "model turn records its latency; campaigns comparing several models side by side record every "
        "candidate reply and the one the worker picked."
    ),
    roles=SPEAKERS,
    license="other",  # the models' replies are under their own terms
    knowledge_license="that of the campaign's knowledge source",
    original="ParlAI's model-chat human evaluation (Smith et al., 2022)",
    citation=CITATION,
)


def read_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def hf(json_dir: Path, result: ExportResult) -> HfDataset:
    records = read_records(json_dir / FILE)
    return HfDataset(features=FEATURES, splits={SPLIT: [row_from_record(r) for r in records]}, card=CARD,
                     turns=sum(len(r["dialog"]) for r in records))


def _extra(values: dict[str, Any]) -> str | None:
    return json.dumps(values, ensure_ascii=False) if values else None


def row_from_record(record: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {key: record.get(key) for key in _RECORD}
    row["conversation_id"] = str(record["conversation_id"])
    row["ratings"] = [{"question": q, "value": v} for q, v in (record.get("ratings") or {}).items()]
    row["dialog"] = []
    for turn in record["dialog"]:
        item = {key: turn.get(key) for key in _TURN}
        item["speaker"] = SPEAKERS.index(turn["speaker"])
        item["extra"] = _extra({k: v for k, v in turn.items() if k not in (*_TURN, "speaker")})
        row["dialog"].append(item)
    row["extra"] = _extra({k: v for k, v in record.items() if k not in (*_RECORD, "ratings", "dialog")})
    return row


def record_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The JSON line a row was made from (the conversation id as a string); a turn's keys the JSON
    left out are left out again."""
    record = {key: row[key] for key in _RECORD}
    record["ratings"] = {r["question"]: r["value"] for r in row["ratings"]}
    record.update(json.loads(row["extra"]) if row["extra"] else {})
    record["dialog"] = []
    for turn in row["dialog"]:
        item = {"id": turn["id"], "speaker": SPEAKERS[turn["speaker"]], "text": turn["text"]}
        item.update({key: turn[key] for key in _TURN[2:] if turn[key] is not None})
        item.update(json.loads(turn["extra"]) if turn["extra"] else {})
        record["dialog"].append(item)
    return record
