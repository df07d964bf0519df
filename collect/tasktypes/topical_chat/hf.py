"""Topical-Chat as a Hugging Face `datasets` config (`export_dataset topical_chat --format hf`): one
row per conversation of `conversations/<split>.json`, the release's five splits (train, valid_freq,
valid_rare, test_freq, test_rare), with its id (`conversation_id`), its turns (the agent a class
label) and its reading set. The reading set's sections have keys that vary by configuration ("FS1",
"AS2", ...), so it is kept whole as JSON text (`reading_set`, from `reading_sets/<build>/`, with the
build it came from). `conversation_from_row` gives the conversation record back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import ClassLabel, Features, List, Value

from collect.exporters import ExportResult
from collect.exporters.hf import CardFacts, HfDataset
from collect.tasktypes.topical_chat.files import conversations_path, reading_sets_path
from collect.tasktypes.topical_chat.release import POST_BUILD, PRE_BUILD, SPLITS

AGENTS = ("agent_1", "agent_2")

FEATURES = Features({
    "conversation_id": Value("string"),
    "article_url": Value("string"),
    "config": Value("string"),
    "content": List({
        "message": Value("string"),
        "agent": ClassLabel(names=list(AGENTS)),
        "sentiment": Value("string"),
        "knowledge_source": List(Value("string")),
        "turn_rating": Value("string"),
    }),
    "conversation_rating": {agent: Value("string") for agent in AGENTS},
    "reading_set": Value("string"),
    "reading_set_build": Value("string"),
})

CITATION = """@inproceedings{gopalakrishnan2019topical,
  title = {Topical-Chat: Towards Knowledge-Grounded Open-Domain Conversations},
  author = {Gopalakrishnan, Karthik and Hedayatnia, Behnam and Chen, Qinlang and Gottardi, Anna and Kwatra, Sanjeev and Venkatesh, Anu and Gabriel, Raefer and Hakkani-T{\\"u}r, Dilek},
  booktitle = {Proceedings of Interspeech 2019},
  year = {2019},
  url = {https://arxiv.org/abs/2308.11995}
}"""

CARD = CardFacts(
    pretty_name="Topical-Chat conversations (Groundwork collection)",
    summary="Knowledge-grounded open-domain conversations between two partners without fixed roles.",
    protocol=(
        "Each partner reads a reading set (entity summaries, fun facts, an article's sections) drawn for "
        "the conversation's configuration (A–D: symmetric or asymmetric knowledge), then they talk; each "
        "turn records its sentiment and the reading-set sections it drew on, and each partner rates the "
        "conversation. The rare splits hold out whole topics."
    ),
    roles=AGENTS,
    license="other",  # reading sets mix Wikipedia (CC BY-SA) with other sources; the card cannot choose one
    knowledge_license="that of the reading sets' sources (see the knowledge source)",
    original="Topical-Chat (Gopalakrishnan et al., 2019)",
    citation=CITATION,
)


def hf(json_dir: Path, result: ExportResult) -> HfDataset:
    splits: dict[str, list[dict[str, Any]]] = {}
    turns = 0
    for split in SPLITS:
        conversations = json.loads(conversations_path(json_dir, split).read_text(encoding="utf-8"))
        reading = {build: _read(reading_sets_path(json_dir, split, build)) for build in (POST_BUILD, PRE_BUILD)}
        rows = []
        for conversation_id, record in conversations.items():
            build = POST_BUILD if conversation_id in reading[POST_BUILD] else PRE_BUILD if conversation_id in reading[PRE_BUILD] else None
            rows.append(row_from_conversation(conversation_id, record, reading[build].get(conversation_id) if build else None, build))
            turns += len(record["content"])
        splits[split] = rows
    return HfDataset(features=FEATURES, splits=splits, card=CARD, turns=turns)


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def row_from_conversation(conversation_id: str, record: dict[str, Any], reading_set: Any, build: str | None) -> dict[str, Any]:
    return {
        "conversation_id": conversation_id,
        "article_url": record["article_url"],
        "config": record["config"],
        "content": [{**turn, "agent": AGENTS.index(turn["agent"])} for turn in record["content"]],
        "conversation_rating": record["conversation_rating"],
        "reading_set": None if reading_set is None else json.dumps(reading_set, ensure_ascii=False),
        "reading_set_build": build,
    }


def conversation_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The conversations/*.json value a row was made from."""
    return {
        "article_url": row["article_url"],
        "config": row["config"],
        "content": [{**turn, "agent": AGENTS[turn["agent"]]} for turn in row["content"]],
        "conversation_rating": row["conversation_rating"],
    }
