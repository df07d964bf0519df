"""Reading WOW++ files (docs/schemas.md#wow) as ranking examples: a dialogue context and its annotated
candidate sentences with the fraction of annotators who picked each.

Only `turns` and `annotated_sentences` are required (the published test files carry just those
and `topic`). A sentence annotated twice in one context (shown in two passages) is one candidate
with the higher confidence: an annotator who picked either copy found it relevant."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from retrieval.rankers import Candidate

SEPARATOR = "<knowledge_separator>"
GOLD_SUFFIX = "_gold"
RELEVANCE_THRESHOLD = 0.6  # the original's: relevant iff confidence >= 0.6
Half = Literal["a", "b"]


class WowppError(ValueError):
    pass


@dataclass(frozen=True)
class WowppContext:
    id: str
    topic: str
    turns: list[str]
    candidates: list[Candidate]
    confidences: np.ndarray

    def relevant(self, threshold: float = RELEVANCE_THRESHOLD) -> np.ndarray:
        return self.confidences >= threshold


def wowpp_read(path: Path, *, half: Half | None = None) -> list[WowppContext]:
    """The contexts of one file in file order; with `half`, only those whose id hashes into it."""
    try:
        data = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WowppError(f"{path}: not a JSON file ({error})") from error
    if not isinstance(data, dict):
        raise WowppError(f"{path}: expected a JSON object keyed by dialogue id, got {type(data).__name__}")
    contexts = [_context(key, entry) for key, entry in data.items()]
    return [c for c in contexts if half is None or wowpp_half(c.id) == half]


def wowpp_half(dialogue_id: str) -> Half:
    """A stable two-way split by id, for training on one half of a file and evaluating on the other."""
    return "a" if hashlib.sha1(dialogue_id.encode()).digest()[0] % 2 == 0 else "b"


def wowpp_context(key: str, entry: object) -> WowppContext:
    """One WOW++ record ({"turns", "annotated_sentences", ...}) as a ranking example."""
    return _context(key, entry)


def _context(key: str, entry: object) -> WowppContext:
    if not isinstance(entry, dict):
        raise WowppError(f"dialogue {key}: expected an object")
    turns, annotated = entry.get("turns"), entry.get("annotated_sentences")
    if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
        raise WowppError(f"dialogue {key}: 'turns' must be a list of strings")
    if not isinstance(annotated, list):
        raise WowppError(f"dialogue {key}: 'annotated_sentences' must be a list")
    confidence: dict[Candidate, float] = {}
    for number, item in enumerate(annotated, start=1):
        candidate, value = _annotation(key, number, item)
        confidence[candidate] = max(value, confidence.get(candidate, 0.0))
    topic = entry.get("topic")
    return WowppContext(
        id=str(entry.get("id") or key),
        topic=topic if isinstance(topic, str) else "",
        turns=list(turns),
        candidates=list(confidence),
        confidences=np.fromiter(confidence.values(), dtype=np.float64, count=len(confidence)),
    )


def _annotation(key: str, number: int, item: object) -> tuple[Candidate, float]:
    where = f"dialogue {key}, annotated sentence {number}"
    if not isinstance(item, dict) or not isinstance(item.get("label"), str):
        raise WowppError(f"{where}: expected an object with a string 'label'")
    value = item.get("confidence")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise WowppError(f"{where}: 'confidence' must be a number between 0 and 1")
    title, separator, text = item["label"].partition(SEPARATOR)
    if not separator:
        title, text = "", title
    article = item.get("article")
    title = (article if isinstance(article, str) else title).strip()
    # The published files mark the original wizard's checked sentence by suffixing its article title
    # with "_gold": that is the answer, so a ranker must never see it.
    return Candidate(title.removesuffix(GOLD_SUFFIX).strip(), text.strip()), float(value)
