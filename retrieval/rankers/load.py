"""Rankers by name, built once per process: a cross-encoder costs ~100 MB and seconds to load."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path

import numpy as np

from retrieval.rankers import Candidate, SentenceRanker, encoded_text
from retrieval.rankers.config import default_model_dir, ranker_config
from retrieval.rankers.hybrid import HybridRanker
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.rankers.tfidf_paper import TfidfPaperRanker

_built: dict[Hashable, SentenceRanker] = {}
_broken: set[Hashable] = set()  # promoted models that did not load: not read again on every rerank
_lock = threading.Lock()


def ranker_get(
    name: str, *, checkpoint: Path | None = None, device: str = "auto", batch_size: int = 32, hybrid_weight: float = 0.5,
    language: str = "en",
) -> SentenceRanker:
    """`language`: the knowledge's, for the TF-IDF part's words (stems, or Chinese words)."""
    if name == "tfidf":
        return TfidfRanker(language=language)
    if name == "tfidf-paper":
        return TfidfPaperRanker()
    if name == "learned":
        return _learned_get(checkpoint, device)
    neural = _neural_get(checkpoint, device, batch_size)
    if name == "neural":
        return neural
    if name == "hybrid":
        return HybridRanker(tfidf=TfidfRanker(language=language), neural=neural, weight=hybrid_weight)
    raise ValueError(f"unknown ranker {name!r} (tfidf, tfidf-paper, neural, hybrid or learned)")


def live_ranker(*, language: str = "en") -> SentenceRanker:
    """The ranker the wizard panel is reordered with, as configured (GROUNDWORK_RANKER, ...)."""
    config = ranker_config()
    if config.threads and config.ranker not in ("tfidf", "tfidf-paper"):
        import torch

        # Process-wide: in the embedded mode, fewer threads leave a core to the chat.
        torch.set_num_threads(config.threads)
    if config.bundled:
        retrained = _retrained(config.device)
        if retrained is not None:
            return retrained
    ranker = ranker_get(
        config.ranker, checkpoint=config.checkpoint, device=config.device,
        batch_size=config.batch_size, hybrid_weight=config.hybrid_weight, language=language,
    )
    if config.bundled and config.checkpoint is not None:
        ranker.version = f"shipped-{config.checkpoint.name}"  # type: ignore[attr-defined]
    if config.minilm_where_stored:
        return _once(("where-stored", config.device), lambda: WhereStored(lexical=ranker, device=config.device))
    return ranker


class WhereStored:
    """The shipped learned ranker on a CPU: the MiniLM-feature model for a panel whose sentences
    have stored vectors (one encoding of the new turn, then lookups: milliseconds), the lexical
    model for the others (encoding ~60 sentences live costs ~0.5 s). The MiniLM model, and torch
    with it, is loaded the first time a panel has its vectors."""

    name = "learned"
    MIN_STORED = 0.8  # share of a panel's sentences with stored vectors; the rest are encoded live

    def __init__(self, *, lexical: SentenceRanker, device: str) -> None:
        self.lexical, self.device = lexical, device
        self._minilm: SentenceRanker | None = None

    @property
    def version(self) -> str:
        """For a caller that records one model for many panels (stored panels record the one picked)."""
        from retrieval.index.vectors import vectors_all

        return "shipped-minilm-where-stored" if vectors_all() else str(getattr(self.lexical, "version", "learned"))

    def pick(self, candidates: Sequence[Candidate]) -> SentenceRanker:
        from retrieval.index.vectors import stored_share

        if not candidates or stored_share([encoded_text(c) for c in candidates]) < self.MIN_STORED:
            return self.lexical
        if self._minilm is None:
            minilm = _learned_get(default_model_dir(features="minilm", device=self.device), self.device)
            minilm.version = "shipped-minilm"  # type: ignore[attr-defined]
            self._minilm = minilm
        return self._minilm

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        return self.pick(candidates).score(context, candidates, topic=topic)


def ranker_picked(ranker: SentenceRanker, candidates: Sequence[Candidate]) -> SentenceRanker:
    """The ranker that scores these candidates: WhereStored picks one per panel."""
    pick = getattr(ranker, "pick", None)
    return pick(candidates) if pick is not None else ranker


def ranker_version(ranker: SentenceRanker) -> str:
    """What a stored panel records as the model that ranked it: a retrained version (v0003), the
    shipped model (shipped-lexical), or the ranker's name for the others."""
    return str(getattr(ranker, "version", "") or ranker.name)


def _retrained(device: str) -> SentenceRanker | None:
    """The version the collection's retraining promoted (retrieval/training), built once; None
    while the shipped model is live or when the promoted one does not load."""
    from retrieval.rankers.learned import LearnedModelError, LearnedRanker, learned_load
    from retrieval.training.live import promoted_model, promoted_refuse

    promoted = promoted_model()
    if promoted is None:
        return None
    key = ("retrained", promoted.directory.resolve(), device)
    if key in _broken:
        return None

    def build() -> SentenceRanker:
        ranker = LearnedRanker(learned_load(promoted.directory), device=device)
        ranker.version = promoted.version  # type: ignore[attr-defined]
        return ranker

    try:
        with _lock:
            if key not in _built:
                # One retrained model in memory at a time: the one it replaces is dropped.
                for old in [k for k in _built if k[0] == "retrained"]:  # type: ignore[index]
                    del _built[old]
                _built[key] = build()
            return _built[key]
    except (LearnedModelError, OSError) as error:
        _broken.add(key)
        promoted_refuse(promoted, error)
        return None


def _neural_get(checkpoint: Path | None, device: str, batch_size: int) -> SentenceRanker:
    from retrieval.rankers.neural import NeuralRanker  # torch + transformers: only when asked for

    key = ("neural", checkpoint.resolve() if checkpoint else None, device, batch_size)
    return _once(key, lambda: NeuralRanker(checkpoint=checkpoint, device=device, batch_size=batch_size))


def _learned_get(checkpoint: Path | None, device: str) -> SentenceRanker:
    from retrieval.rankers.learned import LearnedRanker, learned_load

    if checkpoint is None:
        raise ValueError("the learned ranker needs a model directory (train_reranker --model learned)")
    return _once(("learned", checkpoint.resolve(), device), lambda: LearnedRanker(learned_load(checkpoint), device=device))


def _once(key: Hashable, build: Callable[[], SentenceRanker]) -> SentenceRanker:
    with _lock:
        if key not in _built:
            _built[key] = build()
        return _built[key]
