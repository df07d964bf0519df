"""WOW++ files (docs/schemas.md#wow) -> relevance items.

As `task` the file becomes a finished job: each item keeps its vote counts and its exact confidences,
so that the export writes the same bytes back. The number of annotators behind a context is not in the
file (10 in most of the original, 9 in some contexts): it is inferred per context as the smallest n up
to MAX_ANNOTATORS that makes every confidence a whole number of votes, preferring the job's overlap
(`--annotators`, else `--overlap`, else 10) when that fits. As `gold` or
`qualification`, the sentences at or above the threshold become the item's known answer.

`id`, `start_speaker`, `knowledges` and `gold_sentence` are optional: the released test-seen file lacks
them; `gold_sentence` may be `{}` (two contexts of the test-unseen file) or null, `knowledges` and
`annotated_sentences` may be empty. An item keeps exactly the fields its record had, in their order
(keys this importer does not know included, wherever they stand), so a re-export has the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from annotate.importers import ImportFailure, is_str_list, read_json, require, role_of, target_job
from annotate.kinds.relevance import NAME
from annotate.kinds.relevance.exporter import OPTIONAL, SEPARATOR, default_key_order
from annotate.models import ItemRole
from annotate.services.jobs import ItemSpec, items_add

RELEVANCE = {"relevant": True, "notRelevant": False}
MAX_ANNOTATORS = 20
# Published confidences are rounded to 9 decimals (7/9 is written 0.777777778).
VOTE_TOLERANCE = 1e-6
KNOWN = {"turns", "topic", "annotated_sentences", *OPTIONAL}


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise ImportFailure("a WOW++ file is a JSON object mapping dialogue ids to contexts")
    role = role_of(options)
    annotators = int(options.get("annotators") or options.get("overlap") or 10)
    threshold = float(options["threshold"]) if options.get("threshold") is not None else 0.6
    if annotators < 1 or not 0.0 <= threshold <= 1.0:
        raise ImportFailure("annotators must be at least 1 and threshold between 0 and 1")
    specs = [item_spec(key, record, role=role, annotators=annotators, threshold=threshold) for key, record in data.items()]
    with transaction.atomic():
        finished = role == ItemRole.TASK
        settings = {"threshold": threshold, "source": {"dataset": "wowpp", "file": path.name}}
        if finished:
            options = {**options, "overlap": annotators}
            settings["is_active"] = False
        job = target_job(path, options, kind=NAME, create_fresh=finished, **settings)
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
    gold = record.get("gold_sentence") or {}
    # `{}` where the original wizard's choice was not kept (two contexts of the released test-unseen
    # file); absent or null is taken as that too. The record's own value is what gets exported.
    require(
        isinstance(gold, dict) and len(gold) <= 1 and all(isinstance(v, str) for v in gold.values()),
        where,
        "gold_sentence must be {} or a one-key object {key: sentence}",
    )
    sentences = record["annotated_sentences"]
    require(isinstance(sentences, list), where, "annotated_sentences must be a list")
    candidates, confidences, relevant = [], [], []
    for n, sentence in enumerate(sentences):
        candidate, confidence = _candidate(sentence, f"{where}, sentence {n}", threshold)
        candidates.append(candidate)
        confidences.append(confidence)
        if confidence >= threshold:
            relevant.append(n)
    count = annotators_of(confidences, preferred=annotators)
    bound = max(MAX_ANNOTATORS, annotators)
    require(count is not None, where, f"its confidences are not whole numbers of votes for any number of annotators up to {bound}")
    payload = {k: record[k] for k in ("topic", "turns", *OPTIONAL) if k in record}
    payload["candidates"] = candidates
    extra = {k: v for k, v in record.items() if k not in KNOWN}
    if extra:
        payload["extra"] = extra
    if list(record) != default_key_order(record):
        payload["key_order"] = list(record)  # an unknown key mid-record, or another order: written back as read
    if role == ItemRole.TASK:
        votes = [round(c * count) for c in confidences]
        tally: dict[str, Any] = {"annotators": count, "selected": votes}
        if any(v / count != c for v, c in zip(votes, confidences)):
            tally["confidences"] = confidences  # as published (e.g. 0.777777778), written back as they were
        return ItemSpec(key=key, payload=payload, imported_tally=tally)
    return ItemSpec(key=key, payload=payload, role=role, gold={"selected": relevant})


def annotators_of(confidences: list[float], *, preferred: int) -> int | None:
    """The number of annotators behind these confidences: `preferred` if every confidence is a whole
    number of its votes, else the smallest n up to max(MAX_ANNOTATORS, preferred) that is; None if none."""
    def fits(n: int) -> bool:
        return all(abs(c * n - round(c * n)) < VOTE_TOLERANCE for c in confidences)

    if fits(preferred):
        return preferred
    return next((n for n in range(1, max(MAX_ANNOTATORS, preferred) + 1) if fits(n)), None)


def _candidate(sentence: Any, where: str, threshold: float) -> tuple[dict[str, str], float]:
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
    require(
        RELEVANCE[sentence["relevance"]] == (confidence >= threshold),
        where,
        f"relevance {sentence['relevance']!r} disagrees with confidence {confidence} at threshold {threshold}; set --threshold",
    )
    prefix = f"{article}{SEPARATOR}"
    candidate = {"article": article, "sentence": label[len(prefix):] if label.startswith(prefix) else label}
    if not label.startswith(prefix):
        candidate["label"] = label  # written back as it was
    return candidate, confidence
