"""DuConv as a Hugging Face `datasets` config (`export_dataset duconv --format hf`): one row per
session of `train.txt`, `dev.txt` and `test.txt` (splits train, dev, test): `goal` and `knowledge`
as lists of [subject, relation, object] string lists, `conversation` as the utterances in order (the
leading agent's at even places). Keys an imported session carried beyond these go into `extra` as a
JSON object. Test-format samples (`--samples`) are not part of this export.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import Features, List, Value

from collect.exporters import ExportError, ExportResult
from collect.exporters.hf import CardFacts, HfDataset
from collect.tasktypes.duconv.exporter import SPLITS

_KEYS = ("goal", "knowledge", "conversation")

FEATURES = Features({
    "goal": List(List(Value("string"))),
    "knowledge": List(List(Value("string"))),
    "conversation": List(Value("string")),
    "extra": Value("string"),
})

CITATION = """@inproceedings{wu2019proactive,
  title = {Proactive Human-Machine Conversation with Explicit Conversation Goals},
  author = {Wu, Wenquan and Guo, Zhen and Zhou, Xiangyang and Wu, Hua and Zhang, Xiyuan and Lian, Rongzhong and Wang, Haifeng},
  booktitle = {Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics (ACL)},
  year = {2019},
  url = {https://arxiv.org/abs/1906.05572}
}"""

CARD = CardFacts(
    pretty_name="DuConv sessions (Groundwork collection)",
    summary="Goal-driven conversations in which a leading agent steers the talk from one topic to another over a knowledge graph.",
    protocol=(
        "The *agent* sees the goal (START → topic A → topic B, with the relations linking them) and the "
        "background knowledge triples, and leads the conversation through both topics; the *user* follows. "
        "The agent speaks first; `conversation` alternates agent and user utterances."
    ),
    roles=("agent", "user"),
    # The triples come from the campaign's knowledge graph, whose licence the card cannot know.
    license="other",
    knowledge_license="that of the campaign's knowledge graph (see the knowledge source)",
    original="DuConv (Wu et al., 2019)",
    citation=CITATION,
)


def hf(json_dir: Path, result: ExportResult) -> HfDataset:
    splits: dict[str, list[dict[str, Any]]] = {}
    turns = 0
    for split in SPLITS:
        sessions = read_sessions(json_dir / f"{split}.txt")
        splits[split] = [row_from_session(s) for s in sessions]
        turns += sum(len(s["conversation"]) for s in sessions)
    return HfDataset(features=FEATURES, splits=splits, card=CARD, turns=turns)


def read_sessions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def row_from_session(session: dict[str, Any]) -> dict[str, Any]:
    if "conversation" not in session:
        raise ExportError("test-format samples (--samples) have no Hugging Face export: export the sessions (without --samples)")
    more = {key: value for key, value in session.items() if key not in _KEYS}
    return {**{key: session[key] for key in _KEYS}, "extra": json.dumps(more, ensure_ascii=False) if more else None}


def session_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The JSON session a row was made from."""
    return {**{key: row[key] for key in _KEYS}, **(json.loads(row["extra"]) if row["extra"] else {})}
