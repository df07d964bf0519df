"""The neural sentence ranker: a cross-encoder scoring (context, candidate) pairs in batches, on
CUDA when there is one (or as configured) and on the CPU otherwise."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from retrieval.rankers import Candidate
from retrieval.rankers.cross_encoder import collate, cross_encoder_load, encode_pairs, pick_device


class NeuralRanker:
    name = "neural"

    def __init__(self, *, checkpoint: Path | None, device: str = "auto", batch_size: int = 32) -> None:
        self.checkpoint = checkpoint
        self.device = pick_device(device)
        self.batch_size = batch_size
        model, self.tokenizer, self.meta = cross_encoder_load(checkpoint)
        self.model = model.to(self.device)
        self.max_length = int(self.meta.get("max_length", 128))
        # One scoring at a time per process: concurrent batches on a 2-core CPU only slow each other
        # down, and serialising keeps a burst of reranks from starving the chat's threads.
        self._lock = threading.Lock()

    @property
    def trained(self) -> bool:
        return bool(self.meta.get("trained"))

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        # The topic is not part of the pairs it was trained on, so it is not given to it either.
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        pairs = encode_pairs(self.tokenizer, context, candidates, max_length=self.max_length)
        # Longest first, so each batch pads to similar lengths; scores go back to input order.
        order = sorted(range(len(pairs)), key=lambda i: -len(pairs[i][0]))
        scores = np.empty(len(pairs), dtype=np.float32)
        with self._lock, torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                batch = collate([pairs[i] for i in rows], pad_id=self.tokenizer.pad_token_id, device=self.device)
                with torch.autocast(self.device.type, dtype=torch.float16, enabled=self.device.type == "cuda"):
                    logits = self.model(**batch)
                scores[rows] = logits.float().cpu().numpy()
        return scores
