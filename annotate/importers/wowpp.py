"""WOW++ files (SCHEMAS.md section 3) -> relevance items.

As `task` the file becomes a finished job: each item keeps its vote counts (confidence x annotators,
10 in the original), so that the export writes the same confidences back. As `gold` or
`qualification`, the sentences at or above the threshold become the item's known answer.

`id`, `start_speaker`, `knowledges` and `gold_sentence` are optional: the released test files lack
them. An item keeps exactly the fields its record had, so a re-export has the same keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from annotate.exporters.wowpp import OPTIONAL, SEPARATOR
from annotate.importers import ImportFailure, is_str_list, read_json, require, role_of, target_job
from annotate.models import ItemRole, JobKind
from annotate.services.jobs import ItemSpec, items_add

RELEVANCE = {"relevant": True, "notRelevant": False}
KNOWN = {"turns", "topic", "annotated_sentences", *OPTIONAL}


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise ImportFailure("a WOW++ file is a JSON object mapping dialogue ids to contexts")
    role = role_of(options)
    annotators = int(options.get("annotators") or 10)
    threshold = float(options["threshold"]) if options.get("threshold") is not None else 0.6
    if annotators < 1 or not 0.0 <= threshold <= 1.0:
        raise ImportFailure("annotators must be at least 1 and threshold between 0 and 1")
    specs = [item_spec(key, record, role=role, annotators=annotators, threshold=threshold) for key, record in data.items()]
    with transaction.atomic():
        finished = role == ItemRole.TASK
        settings = {"relevance_threshold": threshold, "source": {"dataset": "wowpp", "file": path.name}}
        if finished:
            options = {**options, "overlap": annotators}
            settings["is_active"] = False
        job = target_job(path, options, kind=JobKind.RELEVANCE, create_fresh=finished, **settings)
        added = items_add(job=job, specs=specs)
    return {"job": job.slug, "role": role, "items": added, "skipped": len(specs) - added}


def item_spec(key: str, record: Any, *, role: str, annotators: int, threshold: float) -> ItemSpec:
    where = f"dialogue {key}"
    require(isinstance(record, dict), where, "must be an object")
    missing = sorted({"turns", "topic", "annotated_sentences"} - set(record))
    require(not missing, where, f"missing {', '.join(missing)}")
    require(is_str_list(record["turns"]) and bool(record["turns"]), where, "turns must be a non-empty list of strings")
    require(isinstance(record["topic"], str), where, "topic must be a string")
    require(record.get("id", key) == key, where, "id must equal the key")
    require(record.get("start_speaker", "Human") in ("Human", "Assistant"), where, "start_speaker is Human or Assistant")
    knowledges = record.get("knowledges", [])
    require(
        isinstance(knowledges, list)
        and all(isinstance(k, dict) and len(k) == 1 and is_str_list(next(iter(k.values()))) for k in knowledges),
        where,
        "knowledges must be a list of {title: [sentences]}",
    )
    gold = record.get("gold_sentence", {"": ""})
    require(isinstance(gold, dict) and len(gold) == 1, where, "gold_sentence must be a one-key object")
    sentences = record["annotated_sentences"]
    require(isinstance(sentences, list), where, "annotated_sentences must be a list")
    candidates, votes, relevant = [], [], []
    for n, sentence in enumerate(sentences):
        candidate, count, is_relevant = _candidate(sentence, f"{where}, sentence {n}", annotators, threshold)
        candidates.append(candidate)
        votes.append(count)
        if is_relevant:
            relevant.append(n)
    payload = {k: record[k] for k in ("topic", "turns", *OPTIONAL) if k in record}
    payload["candidates"] = candidates
    extra = {k: v for k, v in record.items() if k not in KNOWN}
    if extra:
        payload["extra"] = extra
    if role == ItemRole.TASK:
        return ItemSpec(key=key, payload=payload, imported_tally={"annotators": annotators, "selected": votes})
    return ItemSpec(key=key, payload=payload, role=role, gold={"selected": relevant})


def _candidate(sentence: Any, where: str, annotators: int, threshold: float) -> tuple[dict[str, str], int, bool]:
    require(isinstance(sentence, dict), where, "must be an object")
    label, article = sentence.get("label"), sentence.get("article")
    require(isinstance(label, str) and isinstance(article, str), where, "label and article must be strings")
    confidence = sentence.get("confidence")
    require(
        isinstance(confidence, (int, float)) and not isinstance(confidence, bool) and 0.0 <= confidence <= 1.0,
        where,
        "confidence must be a number between 0 and 1",
    )
    require(sentence.get("relevance") in RELEVANCE, where, "relevance must be 'relevant' or 'notRelevant'")
    count = round(confidence * annotators)
    require(
        abs(count - confidence * annotators) < 1e-6 and count / annotators == confidence,
        where,
        f"confidence {confidence} is not a whole number of votes out of {annotators}; set --annotators",
    )
    require(
        RELEVANCE[sentence["relevance"]] == (confidence >= threshold),
        where,
        f"relevance {sentence['relevance']!r} disagrees with confidence {confidence} at threshold {threshold}; set --threshold",
    )
    prefix = f"{article}{SEPARATOR}"
    candidate = {"article": article, "sentence": label[len(prefix):] if label.startswith(prefix) else label}
    if not label.startswith(prefix):
        candidate["label"] = label  # written back as it was
    return candidate, count, confidence >= threshold
