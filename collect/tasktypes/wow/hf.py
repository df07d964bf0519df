"""Wizard of Wikipedia as a Hugging Face `datasets` config (`export_dataset wow --format hf`): one
row per dialogue of ParlAI's five files, the same keys, and the files' names as the splits
(train, valid_random_split, valid_topic_split, test_random_split, test_topic_split).

The JSON's one-key objects become structs a table can declare: a passage `{title: [sentences]}`
is `{"title", "sentences"}`, a checked sentence or passage `{key: text}` is `{"key", "text"}`.
The speaker ("0_Wizard", "1_Apprentice", ...) is a class label. Keys a turn or dialogue lacks in
the JSON (an apprentice's checked sentence, candidates outside valid and test, `incomplete` on a
complete dialogue) are None. `dialogue_from_row` gives the JSON dialogue back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import ClassLabel, Features, List, Value

from collect.exporters import ExportResult
from collect.exporters.hf import CardFacts, HfDataset
from collect.tasktypes.wow.exporter import END_REASON_KEY, FILES, INCOMPLETE_KEY

SPEAKERS = ("0_Wizard", "1_Apprentice", "0_Apprentice", "1_Wizard")
_KEYED = Features({"key": Value("string"), "text": Value("string")})

FEATURES = Features({
    "chosen_topic": Value("string"),
    "persona": Value("string"),
    "wizard_eval": Value("int32"),
    "chosen_topic_passage": List(Value("string")),
    "dialog": List({
        "speaker": ClassLabel(names=list(SPEAKERS)),
        "text": Value("string"),
        "retrieved_topics": List(Value("string")),
        "retrieved_passages": List({"title": Value("string"), "sentences": List(Value("string"))}),
        "checked_sentence": dict(_KEYED),
        "checked_passage": dict(_KEYED),
        "candidate_responses": List(Value("string")),
    }),
    INCOMPLETE_KEY: Value("bool"),
    END_REASON_KEY: Value("string"),
})

CITATION = """@inproceedings{dinan2019wizard,
  title = {Wizard of {W}ikipedia: Knowledge-Powered Conversational Agents},
  author = {Dinan, Emily and Roller, Stephen and Shuster, Kurt and Fan, Angela and Auli, Michael and Weston, Jason},
  booktitle = {International Conference on Learning Representations (ICLR)},
  year = {2019},
  url = {https://arxiv.org/abs/1811.01241}
}"""

CARD = CardFacts(
    pretty_name="Wizard of Wikipedia dialogues (Groundwork collection)",
    summary="Knowledge-grounded open-domain dialogues between two crowdworkers about a chosen topic.",
    protocol=(
        "The first speaker picks a topic from the persona's linked topics. The *wizard* sees the topic's "
        "passage and passages retrieved for the last two turns, and checks the sentence they used (or "
        "\"no sentence used\") before each reply; the *apprentice* is curious and sees no knowledge. "
        "Each speaks a drawn number of turns before either may end; the apprentice rates the wizard "
        "1–5 (`wizard_eval`). Unseen-topic splits (`*_topic_split`) hold out whole topics."
    ),
    roles=("wizard", "apprentice"),
    # The wizard's utterances and every passage quote Wikipedia, whose text is CC BY-SA.
    license="cc-by-sa-4.0",
    knowledge_license="Wikipedia text, CC BY-SA",
    original="Wizard of Wikipedia (Dinan et al., 2019)",
    citation=CITATION,
)


def hf(json_dir: Path, result: ExportResult) -> HfDataset:
    splits: dict[str, list[dict[str, Any]]] = {}
    turns = 0
    for file in FILES:
        dialogues = json.loads((json_dir / file).read_text(encoding="utf-8"))
        splits[file.removesuffix(".json")] = [row_from_dialogue(d) for d in dialogues]
        turns += sum(len(d["dialog"]) for d in dialogues)
    return HfDataset(features=FEATURES, splits=splits, card=CARD, turns=turns)


def row_from_dialogue(dialogue: dict[str, Any]) -> dict[str, Any]:
    return {
        "chosen_topic": dialogue["chosen_topic"],
        "persona": dialogue["persona"],
        "wizard_eval": dialogue["wizard_eval"],
        "chosen_topic_passage": dialogue["chosen_topic_passage"],
        "dialog": [_turn_row(turn) for turn in dialogue["dialog"]],
        INCOMPLETE_KEY: dialogue.get(INCOMPLETE_KEY),
        END_REASON_KEY: dialogue.get(END_REASON_KEY),
    }


def _turn_row(turn: dict[str, Any]) -> dict[str, Any]:
    return {
        "speaker": SPEAKERS.index(turn["speaker"]),
        "text": turn["text"],
        "retrieved_topics": turn["retrieved_topics"],
        "retrieved_passages": [{"title": t, "sentences": s} for p in turn["retrieved_passages"] for t, s in p.items()],
        "checked_sentence": _keyed(turn.get("checked_sentence")),
        "checked_passage": _keyed(turn.get("checked_passage")),
        "candidate_responses": turn.get("candidate_responses"),
    }


def _keyed(one_key: dict[str, str] | None) -> dict[str, str] | None:
    if one_key is None:
        return None
    (key, text), = one_key.items()
    return {"key": key, "text": text}


def dialogue_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The JSON dialogue a row was made from (a row as `datasets` reads it: speakers as ints)."""
    out = {key: row[key] for key in ("chosen_topic", "persona", "wizard_eval", "chosen_topic_passage")}
    out["dialog"] = []
    for turn in row["dialog"]:
        entry: dict[str, Any] = {
            "speaker": SPEAKERS[turn["speaker"]],
            "text": turn["text"],
            "retrieved_topics": turn["retrieved_topics"],
            "retrieved_passages": [{p["title"]: p["sentences"]} for p in turn["retrieved_passages"]],
        }
        for key in ("checked_sentence", "checked_passage"):
            if turn[key] is not None:
                entry[key] = {turn[key]["key"]: turn[key]["text"]}
        if turn["candidate_responses"] is not None:
            entry["candidate_responses"] = turn["candidate_responses"]
        out["dialog"].append(entry)
    for key in (INCOMPLETE_KEY, END_REASON_KEY):
        if row[key] is not None:
            out[key] = row[key]
    return out
