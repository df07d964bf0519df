"""The live ranker's configuration, from django.conf.settings (read from the environment at start-up
by groundwork/settings.py): which ranker, which checkpoint or shipped model, where and how it runs.
Read on each call, so a test's settings override applies; what depends on files (is the checkpoint
one, does it fit the ranker) is checked here, naming the variable."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

RANKERS = ("tfidf", "tfidf-paper", "neural", "hybrid", "learned")
DEVICES = ("auto", "cpu", "cuda")
# Learned models shipped with Groundwork (fitted on the WOW++ test-seen file; provenance and the data's
# CC BY-SA attribution are inside each learned.json and in ATTRIBUTION.md): the live ranker without
# a configured checkpoint.
DEFAULT_MODELS = Path(__file__).resolve().parent / "default_models"


@dataclass(frozen=True)
class RankerConfig:
    ranker: str  # the live ranker of the wizard panel
    checkpoint: Path | None  # a train_reranker output directory (cross-encoder or learned); None = none
    device: str
    batch_size: int
    threads: int  # torch intra-op threads in this process; 0 = torch's default
    timeout_s: float  # how long a live rerank may take before the TF-IDF order stays
    hybrid_weight: float  # weight of the neural score in the hybrid (TF-IDF gets the rest)
    mode: str  # where live reranks run: "process" (a thread here), "celery" (the rerank queue), "auto"
    bundled: bool = False  # checkpoint is one of DEFAULT_MODELS, not one the researcher configured
    # The shipped MiniLM-feature model for the panels whose sentences have stored vectors (a CPU,
    # GROUNDWORK_RANKER_FEATURES=auto): checkpoint is then the lexical model, for the other panels.
    minilm_where_stored: bool = False


def ranker_config() -> RankerConfig:
    raw_checkpoint = settings.RERANKER_CHECKPOINT
    checkpoint = Path(raw_checkpoint) if raw_checkpoint else None
    learned = checkpoint is not None and (checkpoint / "learned.json").is_file()
    if checkpoint is not None and not learned and not (checkpoint / "reranker.json").is_file():
        raise ImproperlyConfigured(
            f"GROUNDWORK_RERANKER_CHECKPOINT={raw_checkpoint!r} is not a train_reranker checkpoint "
            "(no learned.json nor reranker.json)"
        )
    # The checkpoint says which ranker it is for; without one, the shipped learned model.
    default = "learned" if checkpoint is None or learned else "hybrid"
    ranker = settings.RANKER or default
    device, features = settings.RERANK_DEVICE, settings.RANKER_FEATURES
    bundled = ranker == "learned" and checkpoint is None
    if bundled:
        checkpoint, learned = default_model_dir(features=features, device=device), True
    elif features != "auto":
        raise ImproperlyConfigured(
            f"GROUNDWORK_RANKER_FEATURES={features} picks one of the shipped learned models; it does not apply to "
            f"GROUNDWORK_RANKER={ranker}" + (" with GROUNDWORK_RERANKER_CHECKPOINT" if checkpoint else "")
        )
    if ranker not in ("tfidf", "tfidf-paper", "learned") and checkpoint is None:
        raise ImproperlyConfigured(
            f"GROUNDWORK_RANKER={ranker} needs GROUNDWORK_RERANKER_CHECKPOINT: every ranker but tfidf and "
            "tfidf-paper must be trained first (train_reranker)"
        )
    if (ranker == "learned") != learned:
        kind = "a learned ranker model" if learned else "a cross-encoder checkpoint"
        raise ImproperlyConfigured(f"GROUNDWORK_RANKER={ranker} does not fit GROUNDWORK_RERANKER_CHECKPOINT ({kind})")
    return RankerConfig(
        ranker=ranker,
        checkpoint=checkpoint,
        device=device,
        batch_size=settings.RERANK_BATCH,
        threads=settings.RERANK_THREADS,
        timeout_s=settings.RERANK_TIMEOUT_S,
        hybrid_weight=settings.RERANK_HYBRID_WEIGHT,
        mode=settings.RERANK_MODE,
        bundled=bundled,
        minilm_where_stored=bundled and features == "auto" and checkpoint is not None and checkpoint.name == "lexical" and minilm_shipped(),
    )


def default_model_dir(*, features: str, device: str) -> Path:
    """The shipped model to use: MiniLM features where they are cheap (a GPU, `auto`) or asked for
    (`minilm`), lexical features otherwise (~5 ms on a CPU against ~500 ms with MiniLM when every
    candidate is encoded; with `auto` a CPU still uses MiniLM for the panels whose sentences have
    stored vectors: RankerConfig.minilm_where_stored)."""
    shipped = minilm_shipped()
    if features == "auto":
        features = "minilm" if shipped and device != "cpu" and cuda_available() else "lexical"
    elif features == "minilm" and not shipped:
        raise ImproperlyConfigured(
            "GROUNDWORK_RANKER_FEATURES=minilm: no MiniLM model is shipped in this copy; fit one with "
            "`train_reranker --model learned` and set GROUNDWORK_RERANKER_CHECKPOINT"
        )
    return DEFAULT_MODELS / features


def minilm_shipped() -> bool:
    return (DEFAULT_MODELS / "minilm" / "learned.json").is_file()


@functools.cache
def cuda_available() -> bool:
    # Without the NVIDIA driver there is no GPU: answer without importing torch (seconds, ~300 MB).
    if not Path("/proc/driver/nvidia/version").exists():
        return False
    import torch

    return bool(torch.cuda.is_available())
