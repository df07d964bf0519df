"""The llm_like signal: how likely a human turn's text is under a small causal language model
(settings.AUTHENTICITY_LLM_MODEL, e.g. SmolLM2-135M-Instruct converted by `make smollm2`), as the
mean log-probability of its tokens in nats. Text a model wrote is more probable under a model than
text people write (the likelihood signal of GLTR, Gehrmann et al. 2019, and DetectGPT's baseline,
Mitchell et al. 2023). Computed in the authenticity task on a worker, never on the chat path;
bench/llm_likeness.py measures how well it separates people's turns from a model's.

A flag is evidence for a reviewer, never a decision: a short or formulaic human turn can be as
probable as a model's, which is why turns under AUTHENTICITY_LLM_MIN_TOKENS tokens are not scored."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from collect.models import Assignment, Message
from collect.models_authenticity import AuthenticityFlag, FlagKind

_LOCK = threading.Lock()


@lru_cache(maxsize=2)
def _model(path: str) -> tuple[Any, Any, Any]:
    """(tokenizer, model, device) of the checkpoint folder, loaded once per process; on the GPU
    where there is one."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    # float32 on a CPU: a bfloat16 checkpoint (as `make smollm2` writes) runs several times slower
    # there, and its rounding moves the scores.
    dtype = "auto" if device.type == "cuda" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=dtype).to(device).eval()
    return tokenizer, model, device


def mean_logprobs(texts: list[str], *, model_path: str | Path, batch_size: int = 16) -> list[tuple[float, int]]:
    """(mean log-probability per token in nats, tokens scored) of each text under the causal LM at
    `model_path`, each text scored alone (its first token is predicted from the model's BOS token
    where it has one). Shapes: one pair per text, in order; a text of no token gives (0.0, 0).
    Raises OSError for a folder that holds no checkpoint."""
    import torch

    tokenizer, model, device = _model(str(model_path))
    bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
    out: list[tuple[float, int]] = []
    for start in range(0, len(texts), batch_size):
        encoded = [bos + tokenizer(text, add_special_tokens=False)["input_ids"] for text in texts[start : start + batch_size]]
        width = max((len(ids) for ids in encoded), default=0)
        if width < 2:
            out += [(0.0, 0)] * len(encoded)
            continue
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        ids = torch.tensor([row + [pad] * (width - len(row)) for row in encoded], device=device)
        mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for row in encoded], device=device)
        with _LOCK, torch.no_grad():  # one scoring at a time per process: the model is shared
            logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
        logprobs = torch.log_softmax(logits, dim=-1).gather(2, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
        scored = mask[:, 1:].float()
        for row in range(len(encoded)):
            n = int(scored[row].sum().item())
            out.append(((logprobs[row] * scored[row]).sum().item() / n if n else 0.0, n))
    return out


def room_likeness_compute(*, room_id: Any) -> list[AuthenticityFlag]:
    """Score the room's human turns and store an llm_like flag on each whose mean log-probability
    is above settings.AUTHENTICITY_LLM_THRESHOLD (over at least AUTHENTICITY_LLM_MIN_TOKENS
    tokens), replacing the room's earlier llm_like flags. [] and nothing stored without a model
    (AUTHENTICITY_LLM_MODEL empty)."""
    path = settings.AUTHENTICITY_LLM_MODEL
    if not path:
        return []
    seats = {seat.pk: seat for seat in Assignment.objects.humans().filter(room_id=room_id)}
    messages = list(Message.objects.filter(room_id=room_id, sender_id__in=seats).order_by("seq").only("seq", "text", "sender_id"))
    scores = mean_logprobs([m.text for m in messages], model_path=path)
    flags = [
        AuthenticityFlag(
            assignment=seats[message.sender_id], room_id=room_id, seq=message.seq, kind=FlagKind.LLM_LIKE,
            evidence={"mean_logprob": round(mean, 3), "tokens": tokens, "threshold": settings.AUTHENTICITY_LLM_THRESHOLD,
                      "model": Path(path).name},
        )
        for message, (mean, tokens) in zip(messages, scores)
        if tokens >= settings.AUTHENTICITY_LLM_MIN_TOKENS and mean > settings.AUTHENTICITY_LLM_THRESHOLD
    ]
    with transaction.atomic():
        AuthenticityFlag.objects.filter(room_id=room_id, kind=FlagKind.LLM_LIKE).delete()
        AuthenticityFlag.objects.bulk_create(flags)
    return flags
