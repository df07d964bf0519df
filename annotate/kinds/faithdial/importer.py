"""FaithDial's released JSON (released.py) -> a FaithDial job: one item per utterance, keyed
"<dialogue index>:<utterance index>". The annotators see the Wizard of Wikipedia response: the
utterance's `original_response` where it has one, else its `response`. As `task` the utterances are
to be labeled (and rewritten); as `gold` / `qualification` their BEGIN and VRM labels (and
`response`, the rewrite) are the known answers. Every utterance's fields are kept, as [key, value]
pairs in the file's order (a JSON column need not keep key order), so that the export writes an
unlabeled file back byte for byte (exporter.py).

Errors (ImportFailure, nothing stored) name the dialogue, the utterance and the field: a file that
is not a list of {"utterances": [...]}, a missing or mistyped field, an unknown BEGIN or VRM label,
a lone surrogate (read_json).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from annotate.importers import ImportFailure, is_str_list, read_json, require, role_of, target_job
from annotate.kinds.faithdial import NAME
from annotate.kinds.faithdial.taxonomy import BEGIN, VRM
from annotate.models import ItemRole
from annotate.services.jobs import ItemSpec, items_add

# What the job's `source` names as its dataset when it was imported from a FaithDial file.
FAITHDIAL_FILE = "faithdial"


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise ImportFailure('a FaithDial file is a list of dialogues [{"utterances": [...]}, ...]')
    role = role_of(options)
    specs = [spec for n, dialogue in enumerate(data) for spec in dialogue_specs(n, dialogue, role=role)]
    with transaction.atomic():
        job = target_job(path, options, kind=NAME, create_fresh=False,
                         source={"dataset": FAITHDIAL_FILE, "file": path.name})
        added = items_add(job=job, specs=specs)
    return {"job": job.slug, "role": role, "dialogues": len(data), "items": added, "skipped": len(specs) - added}


def dialogue_specs(n: int, dialogue: Any, *, role: str) -> list[ItemSpec]:
    where = f"dialogue {n}"
    require(isinstance(dialogue, dict), where, "must be an object")
    utterances = dialogue.get("utterances")
    require(isinstance(utterances, list) and bool(utterances), where, "utterances must be a non-empty list")
    # The dialogue's fields in order (its utterances as a placeholder: they are the items), kept
    # with its first utterance, so that other fields (none in the release) survive too.
    extra = [[key, None if key == "utterances" else value] for key, value in dialogue.items()]
    return [utterance_spec(n, t, u, role=role, dialogue=extra if t == 0 else None) for t, u in enumerate(utterances)]


def utterance_spec(n: int, t: int, utterance: Any, *, role: str, dialogue: list | None) -> ItemSpec:
    where = f"dialogue {n}, utterance {t}"
    require(isinstance(utterance, dict), where, "must be an object")
    require(is_str_list(utterance.get("history")), where, "history must be a list of strings")
    for field in ("knowledge", "response"):
        require(isinstance(utterance.get(field), str) and bool(utterance[field].strip()), where, f"{field} must be non-empty text")
    require(isinstance(utterance.get("speaker", ""), str), where, "speaker must be text")
    original = utterance.get("original_response")
    require(original is None or isinstance(original, str), where, "original_response must be text or null")
    labels = {field: check_labels(utterance, field, known, where) for field, known in (("BEGIN", BEGIN), ("VRM", VRM))}
    payload: dict[str, Any] = {
        "history": utterance["history"],
        "speaker": utterance.get("speaker", "Wizard"),
        "knowledge": utterance["knowledge"],
        "response": original if original and original.strip() else utterance["response"],
        "dialog": n,
        "turn": t,
        "record": [[key, value] for key, value in utterance.items()],
    }
    if dialogue is not None:
        payload["dialogue"] = dialogue
    key = f"{n}:{t}"
    if role == ItemRole.TASK:
        return ItemSpec(key=key, payload=payload)
    require(bool(labels["BEGIN"]) and bool(labels["VRM"]), where, f"a {role} utterance needs BEGIN and VRM labels")
    edited = utterance["response"] if original and original.strip() else ""
    return ItemSpec(key=key, payload=payload, role=role, gold={"begin": labels["BEGIN"], "vrm": labels["VRM"], "response": edited})


def check_labels(utterance: dict[str, Any], field: str, known: tuple[str, ...], where: str) -> list[str]:
    labels = utterance.get(field, [])
    require(is_str_list(labels), where, f"{field} must be a list of strings")
    unknown = [label for label in labels if label not in known]
    if unknown:
        raise ImportFailure(f"{where}: {field}: unknown label {unknown[0]!r}; choose from {', '.join(known)}")
    return labels
