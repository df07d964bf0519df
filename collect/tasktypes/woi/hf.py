"""Wizard of Internet as a Hugging Face `datasets` config (`export_dataset woi --format hf`): one row
per dialogue of `train.jsonl`, `valid.jsonl` and `test.jsonl` (splits train, valid, test), with its
`dialog_id`, the apprentice's persona and the `dialog_history` entries in order: the action a class
label (the four of collect.tasktypes.woi.layout), the text, the documents of the context
(`contents`) and the wizard's `selected_contents`; null where the entry's context has none. Keys
the format has no column for (an imported timestamp, `incomplete`) go into `extra` as JSON.
`dialogue_from_row` gives the `{dialog_id: dialogue}` line back (keys in a canonical order).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import ClassLabel, Features, List, Value

from collect.exporters import ExportResult
from collect.exporters.hf import CardFacts, HfDataset
from collect.tasktypes.woi.layout import ACTIONS, FILES, HISTORY, PERSONA

_DOCUMENT = {"content": List(Value("string")), "url": Value("string"), "title": Value("string")}
_CONTEXT = ("contents", "selected_contents")
_ENTRY = ("action", "text", "context")

FEATURES = Features({
    "dialog_id": Value("string"),
    PERSONA: Value("string"),
    HISTORY: List({
        "action": ClassLabel(names=list(ACTIONS)),
        "text": Value("string"),
        "contents": List(_DOCUMENT),
        "selected_contents": List(List(Value("bool"))),
        "extra": Value("string"),
    }),
    "extra": Value("string"),
})

CITATION = """@inproceedings{komeili2022internet,
  title = {Internet-Augmented Dialogue Generation},
  author = {Komeili, Mojtaba and Shuster, Kurt and Weston, Jason},
  booktitle = {Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics (ACL)},
  pages = {8460--8478},
  year = {2022},
  url = {https://aclanthology.org/2022.acl-long.579}
}"""

CARD = CardFacts(
    pretty_name="Wizard of Internet dialogues (Groundwork collection)",
    summary="Knowledge-driven dialogues in which one speaker, the wizard, searches for what they say.",
    protocol=(
        "The *apprentice* talks from a persona; the *wizard* may search before each reply (the query, and "
        "the documents found, are entries of `dialog_history`) and selects the sentences they used "
        "(`selected_contents`; its first row is [true] when none was used)."
    ),
    roles=("wizard", "apprentice"),
    license="other",  # search results quote web pages under their own licences
    knowledge_license="that of the searched documents (the campaign's search backend)",
    original="Wizard of Internet (Komeili et al., 2022)",
    citation=CITATION,
)


def hf(json_dir: Path, result: ExportResult) -> HfDataset:
    splits: dict[str, list[dict[str, Any]]] = {}
    turns = 0
    for file in FILES:
        lines = read_lines(json_dir / file)
        splits[file.removesuffix(".jsonl")] = [row_from_line(line) for line in lines]
        turns += sum(1 for line in lines for d in line.values() for e in d[HISTORY] if e["action"] in (ACTIONS[0], ACTIONS[1]))
    return HfDataset(features=FEATURES, splits=splits, card=CARD, turns=turns)


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _extra(values: dict[str, Any]) -> str | None:
    return json.dumps(values, ensure_ascii=False) if values else None


def row_from_line(line: dict[str, Any]) -> dict[str, Any]:
    (dialog_id, dialogue), = line.items()
    history = []
    for entry in dialogue[HISTORY]:
        context = entry.get("context") or {}
        more = {k: v for k, v in entry.items() if k not in _ENTRY}
        if context_more := {k: v for k, v in context.items() if k not in _CONTEXT}:
            more["context"] = context_more
        history.append({
            "action": ACTIONS.index(entry["action"]),
            "text": entry["text"],
            "contents": context.get("contents"),
            "selected_contents": context.get("selected_contents"),
            "extra": _extra(more),
        })
    rest = {k: v for k, v in dialogue.items() if k not in (PERSONA, HISTORY)}
    return {"dialog_id": dialog_id, PERSONA: dialogue[PERSONA], HISTORY: history, "extra": _extra(rest)}


def dialogue_from_row(row: dict[str, Any]) -> dict[str, Any]:
    history = []
    for entry in row[HISTORY]:
        more = json.loads(entry["extra"]) if entry["extra"] else {}
        context = {k: entry[k] for k in _CONTEXT if entry[k] is not None} | more.pop("context", {})
        history.append({"action": ACTIONS[entry["action"]], "text": entry["text"], "context": context, **more})
    dialogue = {PERSONA: row[PERSONA], HISTORY: history, **(json.loads(row["extra"]) if row["extra"] else {})}
    return {row["dialog_id"]: dialogue}
