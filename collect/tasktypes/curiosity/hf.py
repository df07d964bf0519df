"""Curiosity as a Hugging Face `datasets` config (`export_dataset curiosity --format hf`): one row
per dialog of `curiosity_dialogs.<split>.json`, the splits train, val, test and test_zero.

Declared types: the sender is a class label (user, assistant) and so is each dialog act (the 16 of
docs/schemas.md#curiosity); each shown fact carries its text from the fact db the JSON export writes
beside the dialogs (None where that db was never imported). `user_id` and `assistant_id` are strings
(the original release has integers there). Keys the schema does not declare, and standard keys an
imported dialog or message lacked, go into `extra` as a JSON object (`{"keys": {...}, "absent": [...]}`)
so nothing an imported release carried is lost. `dialog_from_row` gives the JSON dialog back.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from datasets import ClassLabel, Features, List, Value

from collect.exporters import ExportError, ExportResult
from collect.exporters.hf import CardFacts, HfDataset
from collect.tasktypes.curiosity.exporter import DB_FILE, FILES, SPLITS

SENDERS = ("user", "assistant")
# docs/schemas.md#curiosity: the 16 dialog acts of the release.
DIALOG_ACTS = (
    "request_topic", "request_aspect", "request_followup", "request_other", "inform_response", "inform_related",
    "inform_unrelated", "feedback_positive", "feedback_negative", "feedback_ask", "offer_topic", "offer_aspect",
    "offer_followup", "offer_other", "offer_accept", "offer_decline",
)
_MESSAGE_KEYS = ("message", "liked", "sender", "facts", "message_id", "dialog_acts")
_DIALOG_KEYS = (
    "dialog_id", "focus_entity", "aspects", "first_aspect", "second_aspect", "known_entities", "related_entities",
    "inferred_steps", "shuffle_facts", "is_annotated", "reported", "annotated", "created_time", "tag", "user_id",
    "assistant_id", "user_dialog_rating", "user_other_agent_rating", "assistant_dialog_rating",
    "assistant_other_agent_rating", "messages",
)
_IDS = ("user_id", "assistant_id")

FEATURES = Features({
    "dialog_id": Value("int64"),
    "focus_entity": Value("string"),
    "aspects": List(Value("string")),
    "first_aspect": Value("string"),
    "second_aspect": Value("string"),
    "known_entities": List(Value("string")),
    "related_entities": List(Value("string")),
    **{flag: Value("bool") for flag in ("inferred_steps", "shuffle_facts", "is_annotated", "reported", "annotated")},
    "created_time": Value("int64"),
    "tag": Value("string"),
    "user_id": Value("string"),
    "assistant_id": Value("string"),
    **{rating: Value("int32") for rating in (
        "user_dialog_rating", "user_other_agent_rating", "assistant_dialog_rating", "assistant_other_agent_rating")},
    "messages": List({
        "message": Value("string"),
        "liked": Value("bool"),
        "sender": ClassLabel(names=list(SENDERS)),
        "facts": List({"fid": Value("int64"), "used": Value("bool"), "source": Value("string"), "text": Value("string")}),
        "message_id": Value("string"),
        "dialog_acts": List(ClassLabel(names=list(DIALOG_ACTS))),
        "extra": Value("string"),
    }),
    "extra": Value("string"),
})

CITATION = """@inproceedings{rodriguez2020curiosity,
  title = {Information Seeking in the Spirit of Learning: A Dataset for Conversational Curiosity},
  author = {Rodriguez, Pedro and Crook, Paul and Moon, Seungwhan and Wang, Zhiguang},
  booktitle = {Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)},
  year = {2020},
  url = {https://arxiv.org/abs/2005.00172}
}"""

CARD = CardFacts(
    pretty_name="Curiosity dialogs (Groundwork collection)",
    summary="Information-seeking dialogs in which a user learns about a topic from an assistant grounded in Wikipedia facts.",
    protocol=(
        "The *user* marks the related entities they already know, gets two aspects of the topic, asks, and "
        "likes the answers they enjoy; the *assistant* sees a bank of facts re-ranked each turn (rooted in "
        "an entity the user knows, of the current aspect, or general) and marks the facts they used. Both "
        "rate the dialog and each other (1–5). `test_zero` holds out whole topics."
    ),
    roles=SENDERS,
    license="cc-by-sa-4.0",  # the facts and the assistant's replies quote Wikipedia (CC BY-SA)
    knowledge_license="Wikipedia text, CC BY-SA",
    original="Curiosity (Rodriguez et al., 2020)",
    citation=CITATION,
)


def hf(json_dir: Path, result: ExportResult) -> HfDataset:
    texts = _fact_texts(json_dir / DB_FILE)
    splits: dict[str, list[dict[str, Any]]] = {}
    turns = 0
    for split in SPLITS:
        dialogs = json.loads((json_dir / FILES[split]).read_text(encoding="utf-8"))["dialogs"]
        splits[split] = [row_from_dialog(d, texts) for d in dialogs]
        turns += sum(len(d["messages"]) for d in dialogs)
    return HfDataset(features=FEATURES, splits=splits, card=CARD, turns=turns)


def _fact_texts(db: Path) -> dict[int, str]:
    if not db.exists():
        return {}
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(connection.execute("SELECT id, text FROM fact"))
    finally:
        connection.close()


def row_from_dialog(dialog: dict[str, Any], texts: dict[int, str]) -> dict[str, Any]:
    row = {key: dialog.get(key) for key in _DIALOG_KEYS if key != "messages"}
    for key in _IDS:
        row[key] = None if row[key] is None else str(row[key])
    row["messages"] = [_message_row(dialog["dialog_id"], m, texts) for m in dialog["messages"]]
    row["extra"] = _extra(dialog, _DIALOG_KEYS)
    return row


def _message_row(dialog_id: int, message: dict[str, Any], texts: dict[int, str]) -> dict[str, Any]:
    row = {key: message.get(key) for key in _MESSAGE_KEYS}
    if row["sender"] not in SENDERS:
        raise ExportError(f"dialog {dialog_id} message {row['message_id']}: sender {row['sender']!r} is not user/assistant")
    row["sender"] = SENDERS.index(row["sender"])
    unknown = sorted(set(row["dialog_acts"] or []) - set(DIALOG_ACTS))
    if unknown:
        raise ExportError(f"dialog {dialog_id} message {row['message_id']}: dialog act(s) {', '.join(unknown)} are not Curiosity's 16")
    if row["dialog_acts"] is not None:
        row["dialog_acts"] = [DIALOG_ACTS.index(act) for act in row["dialog_acts"]]
    row["facts"] = [{**fact, "text": texts.get(fact["fid"])} for fact in row["facts"] or []]
    row["extra"] = _extra(message, _MESSAGE_KEYS)
    return row


def _extra(record: dict[str, Any], declared: tuple[str, ...]) -> str | None:
    keys = {key: value for key, value in record.items() if key not in declared}
    absent = [key for key in declared if key not in record]
    if not keys and not absent:
        return None
    return json.dumps({"keys": keys, "absent": absent}, ensure_ascii=False)


def dialog_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The JSON dialog a row was made from (a row as `datasets` reads it), but for the worker ids,
    which stay strings."""
    out = {key: row[key] for key in _DIALOG_KEYS if key != "messages"}
    out["messages"] = []
    for message in row["messages"]:
        entry = {key: message[key] for key in _MESSAGE_KEYS}
        entry["sender"] = SENDERS[message["sender"]]
        entry["facts"] = [{k: v for k, v in fact.items() if k != "text"} for fact in message["facts"]]
        if message["dialog_acts"] is not None:
            entry["dialog_acts"] = [DIALOG_ACTS[act] for act in message["dialog_acts"]]
        out["messages"].append(_restored(entry, message["extra"]))
    return _restored(out, row["extra"])


def _restored(record: dict[str, Any], extra: str | None) -> dict[str, Any]:
    if extra is None:
        return record
    more = json.loads(extra)
    record.update(more["keys"])
    return {key: value for key, value in record.items() if key not in set(more["absent"])}
