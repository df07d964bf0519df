"""The learned ranker: a logistic regression over candidate_features, trained on WOW++ relevance
(and later on the votes Groundwork collects). Minutes to train on a CPU, milliseconds to apply
(plus one MiniLM encoding of the panel when it uses the semantic features).

A model is a small JSON file (learned.json: feature names, standardisation, weights, provenance),
never a pickle, so loading one runs no code."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from retrieval.rankers import Candidate
from retrieval.rankers.features import candidate_features, feature_names
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.rankers.wowpp import RELEVANCE_THRESHOLD, WowppContext

MODEL_FILE = "learned.json"
KIND = "learned"
DEFAULT_C = 1.0  # inverse regularisation; chosen by cross-fitting on WOW++ halves (README)


class LearnedModelError(ValueError):
    pass


class LearnedRanker:
    name = "learned"

    def __init__(self, model: dict[str, Any], *, device: str = "auto") -> None:
        self.model = model
        self.tfidf = TfidfRanker()
        self.embedder = _embedder(device) if model["semantic"] else None

    @property
    def encodes(self) -> bool:
        return self.embedder is not None

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        rows = candidate_features(context, candidates, topic=topic, tfidf=self.tfidf, embedder=self.embedder)
        return learned_apply(self.model, rows)


def learned_apply(model: dict[str, Any], rows: np.ndarray) -> np.ndarray:
    """Scores of a candidate_features matrix (the logit; only the order matters)."""
    mean, scale, coef = (np.asarray(model[key], dtype=np.float64) for key in ("mean", "scale", "coef"))
    return (((rows - mean) / scale) @ coef).astype(np.float32)


def learned_train(
    contexts: Sequence[WowppContext], *, semantic: bool = True, c: float = DEFAULT_C,
    threshold: float = RELEVANCE_THRESHOLD, device: str = "auto", meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Fit on every candidate of `contexts` (relevant iff confidence >= threshold); returns the model."""
    features = context_features(contexts, semantic=semantic, device=device)
    return learned_fit(features, contexts, semantic=semantic, c=c, threshold=threshold, meta=meta)


def context_features(contexts: Sequence[WowppContext], *, semantic: bool, device: str = "auto") -> list[np.ndarray]:
    """candidate_features of each context (computed once: cross-fitting reuses them)."""
    tfidf, embedder = TfidfRanker(), (_embedder(device) if semantic else None)
    return [
        candidate_features(x.turns, x.candidates, topic=x.topic, tfidf=tfidf, embedder=embedder) for x in contexts
    ]


def learned_fit(
    features: Sequence[np.ndarray], contexts: Sequence[WowppContext], *, semantic: bool, c: float = DEFAULT_C,
    threshold: float = RELEVANCE_THRESHOLD, meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    used = [i for i, context in enumerate(contexts) if context.candidates]
    if not used:
        raise LearnedModelError("no annotated sentences to train on")
    rows = np.vstack([features[i] for i in used])
    labels = np.concatenate([contexts[i].relevant(threshold) for i in used])
    if labels.all() or not labels.any():
        raise LearnedModelError("training needs both relevant and not relevant sentences")
    scaler = StandardScaler().fit(rows)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    fit = LogisticRegression(C=c, max_iter=5000).fit((rows - scaler.mean_) / scale, labels)
    return {
        **(meta or {}),
        "kind": KIND,
        "semantic": semantic,
        "features": list(feature_names(semantic=semantic)),
        "mean": scaler.mean_.tolist(),
        "scale": scale.tolist(),
        "coef": fit.coef_[0].tolist(),
        "intercept": float(fit.intercept_[0]),
        "C": c,
        "threshold": threshold,
        "contexts": len(used),
        "pairs": int(len(labels)),
        "positives": int(labels.sum()),
        "saved_at": datetime.now(UTC).isoformat(),
    }


def learned_save(model: dict[str, Any], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / MODEL_FILE
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(model, indent=1))
    partial.replace(path)  # a reader never sees half a file
    return path


def learned_load(directory: Path) -> dict[str, Any]:
    """The model in `directory`, checked against the features this code computes."""
    path = directory / MODEL_FILE
    try:
        model = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise LearnedModelError(f"{path}: not a learned ranker model ({error})") from error
    if not isinstance(model, dict) or model.get("kind") != KIND or not isinstance(model.get("semantic"), bool):
        raise LearnedModelError(f"{path}: not a learned ranker model")
    expected = list(feature_names(semantic=model["semantic"]))
    if model.get("features") != expected:
        raise LearnedModelError(f"{path}: trained on other features than this version computes; train it again")
    for key in ("mean", "scale", "coef"):
        values = model.get(key)
        if not isinstance(values, list) or len(values) != len(expected) or not all(_finite(v) for v in values):
            raise LearnedModelError(f"{path}: '{key}' must hold {len(expected)} numbers")
    if any(v <= 0 for v in model["scale"]):
        raise LearnedModelError(f"{path}: 'scale' must be positive")
    return model


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and bool(np.isfinite(value))


def _embedder(device: str) -> Any:
    from retrieval.rankers.embedder import Embedder  # torch: only when the semantic features are used

    return Embedder(device=device)
