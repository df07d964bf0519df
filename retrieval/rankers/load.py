"""Rankers by name, built once per process: a cross-encoder costs ~100 MB and seconds to load."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from pathlib import Path

from retrieval.rankers import SentenceRanker
from retrieval.rankers.config import ranker_config
from retrieval.rankers.hybrid import HybridRanker
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.rankers.tfidf_paper import TfidfPaperRanker

_built: dict[Hashable, SentenceRanker] = {}
_lock = threading.Lock()


def ranker_get(
    name: str, *, checkpoint: Path | None = None, device: str = "auto", batch_size: int = 32, hybrid_weight: float = 0.5
) -> SentenceRanker:
    if name == "tfidf":
        return TfidfRanker()
    if name == "tfidf-paper":
        return TfidfPaperRanker()
    if name == "learned":
        return _learned_get(checkpoint, device)
    neural = _neural_get(checkpoint, device, batch_size)
    if name == "neural":
        return neural
    if name == "hybrid":
        return HybridRanker(tfidf=TfidfRanker(), neural=neural, weight=hybrid_weight)
    raise ValueError(f"unknown ranker {name!r} (tfidf, tfidf-paper, neural, hybrid or learned)")


def live_ranker() -> SentenceRanker:
    """The ranker the wizard panel is reordered with, as configured (GROUNDWORK_RANKER, ...)."""
    config = ranker_config()
    if config.threads and config.ranker not in ("tfidf", "tfidf-paper"):
        import torch

        # Process-wide: in the embedded mode, fewer threads leave a core to the chat.
        torch.set_num_threads(config.threads)
    return ranker_get(
        config.ranker, checkpoint=config.checkpoint, device=config.device,
        batch_size=config.batch_size, hybrid_weight=config.hybrid_weight,
    )


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
