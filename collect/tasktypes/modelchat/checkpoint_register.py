"""`register_model NAME --transformers PATH_OR_GGUF [--device auto|cpu|cuda] [--max-new-tokens N
--do-sample --top-p P --repetition-penalty R]`: the command's arguments for a local checkpoint,
and the options they make after the checkpoint's files are checked (checkpoint_files.py)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from django.core.management.base import CommandError

from collect.tasktypes.modelchat.checkpoint_files import CheckpointProblem, checkpoint_check
from collect.tasktypes.modelchat.checkpoint_options import DEVICES

# A first call may wait for the load (half a minute on a CPU) before it generates, and a busy CPU
# generates a few tokens a second.
CHECKPOINT_TIMEOUT_S = 120.0
# No retry by default: an attempt that timed out keeps generating (a thread cannot be stopped), so
# a second one would only wait behind it.
CHECKPOINT_RETRIES = 0
# One generation at a time per process: more would share the same cores or GPU.
CHECKPOINT_CONCURRENCY = 1


def checkpoint_arguments(*, parser: argparse.ArgumentParser, kind: Any) -> None:
    kind.add_argument("--transformers", metavar="PATH_OR_GGUF", help="a causal LM checkpoint directory or .gguf file, run with transformers")
    parser.add_argument("--device", choices=DEVICES, default=None, help="with --transformers: where it runs (auto: the GPU when there is one)")
    parser.add_argument("--max-new-tokens", type=int, help="with --transformers: the longest reply, in tokens")
    parser.add_argument("--do-sample", action="store_true", default=None, help="with --transformers: sample instead of greedy decoding")
    parser.add_argument("--top-p", type=float, help="with --transformers and --do-sample: nucleus sampling's p")
    parser.add_argument("--repetition-penalty", type=float, help="with --transformers: above 1 discourages repeats")


def checkpoint_options_from(*, opts: dict[str, Any], options: Any, stdout: Any) -> dict[str, Any]:
    """The model's options from the command line (over --options), once its files check out."""
    if not isinstance(options, dict):
        raise CommandError("--options must be a JSON object")
    path = os.path.abspath(os.path.expanduser(opts["transformers"]))
    try:
        described = checkpoint_check(path=path)
    except CheckpointProblem as problem:
        raise CommandError(str(problem)) from None
    stdout.write(f"checked {path}: {described}")
    generation = options.get("generation", {})
    given = {
        "max_new_tokens": opts.get("max_new_tokens"),
        "do_sample": opts.get("do_sample"),
        "temperature": opts.get("temperature"),
        "top_p": opts.get("top_p"),
        "repetition_penalty": opts.get("repetition_penalty"),
    }
    if isinstance(generation, dict):  # else full_clean says what is wrong with it
        generation = {**generation, **{k: v for k, v in given.items() if v is not None}}
    merged = {**options, "path": path, "generation": generation}
    if opts.get("device") is not None or "device" not in merged:
        merged["device"] = opts.get("device") or "auto"
    return merged
