"""Running a local checkpoint (EvalModelKind.CHECKPOINT) with `transformers`: loaded once per
process (kept by path, modification time, device and dtype, so a checkpoint rewritten in place
loads again, and its older copy is let go), on the GPU when there is one and the model's device is "auto". The reply
streams from a generation thread (one generation at a time per loaded copy); calls.py reads it on
its thread pool, in the Celery `local_models` worker or, without a broker, in the chat process."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from collect.tasktypes.modelchat.checkpoint_files import checkpoint_locate
from collect.tasktypes.modelchat.checkpoint_options import DEFAULT_KNOWLEDGE_LIMIT, generation_settings
from collect.tasktypes.modelchat.knowledge_use import reply_knowledge
from collect.tasktypes.modelchat.local_prompts import messages_build

log = logging.getLogger(__name__)


@dataclass
class Loaded:
    model: Any
    tokenizer: Any
    device: str
    seconds: float  # how long the load took
    lock: threading.Lock  # one generation at a time per loaded copy


_loaded: dict[tuple[str, float, str, str], Loaded] = {}
_loading: dict[tuple[str, float, str, str], threading.Lock] = {}
_guard = threading.Lock()


def _fresh_after_fork() -> None:
    global _guard
    _guard = threading.Lock()
    _loading.clear()


os.register_at_fork(after_in_child=_fresh_after_fork)


def checkpoint_device(*, requested: str = "auto") -> str:
    import torch

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return requested


def _key(options: dict[str, Any]) -> tuple[str, float, str, str]:
    checkpoint_locate(path=options["path"])  # a clear error when the checkpoint has gone since registration
    path = os.path.realpath(os.path.expanduser(options["path"]))
    device = checkpoint_device(requested=options.get("device", "auto"))
    return path, _modified(path), device, str(options.get("dtype", "auto"))


def _modified(path: str) -> float:
    """A file's modification time; for a directory, its newest file's (weights rewritten in place)."""
    if not os.path.isdir(path):
        return os.path.getmtime(path)
    with os.scandir(path) as entries:
        return max([os.path.getmtime(path), *(entry.stat().st_mtime for entry in entries if entry.is_file())])


def checkpoint_load(*, options: dict[str, Any]) -> Loaded:
    """The model and tokenizer for these options, loaded on the first call in this process; other
    threads asking meanwhile wait for that one load."""
    key = _key(options)
    if key in _loaded:
        return _loaded[key]
    with _guard:
        lock = _loading.setdefault(key, threading.Lock())
    with lock:
        if key not in _loaded:
            _loaded[key] = _load(options, key[2])
            # A checkpoint rewritten in place: its older copy is let go.
            for stale in [k for k in _loaded if k[0] == key[0] and k[1] != key[1]]:
                _loaded.pop(stale, None)
    return _loaded[key]


def _load(options: dict[str, Any], device: str) -> Loaded:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    started = time.perf_counter()
    if device == "cpu" and options.get("cpu_threads"):
        # For the whole process: on a CPU shared with other work, one thread generates several
        # times faster than torch's default of one per core (its threads wait on each other).
        torch.set_num_threads(options["cpu_threads"])
    files = checkpoint_locate(path=options["path"])
    kwargs = {"local_files_only": True, **files.pretrained_kwargs()}
    dtype = options.get("dtype", "auto")
    if dtype == "auto":
        # A GGUF file dequantizes to float32; half precision is the GPU's, float32 the CPU's.
        dtype = torch.bfloat16 if device == "cuda" else torch.float32
    tokenizer = AutoTokenizer.from_pretrained(files.directory, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(files.directory, dtype=dtype, **kwargs).to(device)
    model.eval()
    seconds = time.perf_counter() - started
    log.info("loaded checkpoint %s on %s in %.1f s", options["path"], device, seconds)
    return Loaded(model, tokenizer, device, seconds, threading.Lock())


def checkpoint_stream(*, options: dict[str, Any], context: dict[str, Any], stop: threading.Event) -> Iterator[str]:
    """The model's reply to `context`, piece by piece as it is generated (a transformers
    TextIteratorStreamer); returns {"text", "knowledge_used"} (calls.py's contract). Generation runs
    on a thread of its own and ends at the next token once `stop` is set (calls.py gave up)."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

    loaded = checkpoint_load(options=options)
    limit = options.get("knowledge_limit", DEFAULT_KNOWLEDGE_LIMIT)
    messages, given = messages_build(context=context, options=options, knowledge_limit=limit)
    inputs = loaded.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    inputs = {name: tensor.to(loaded.device) for name, tensor in inputs.items()}
    settings = generation_settings(options)
    pad = loaded.tokenizer.pad_token_id if loaded.tokenizer.pad_token_id is not None else loaded.tokenizer.eos_token_id
    streamer = TextIteratorStreamer(loaded.tokenizer, skip_prompt=True, skip_special_tokens=True)

    class Stopped(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            return torch.full((input_ids.shape[0],), stop.is_set(), dtype=torch.bool, device=input_ids.device)

    outcome: dict[str, Any] = {}

    def generate() -> None:
        try:
            with loaded.lock, torch.inference_mode():
                output = loaded.model.generate(
                    **inputs, **settings, pad_token_id=pad, streamer=streamer, stopping_criteria=StoppingCriteriaList([Stopped()])
                )
            outcome["tokens"] = output.shape[1] - inputs["input_ids"].shape[1]
        except Exception as error:  # noqa: BLE001 - reported to the caller below
            outcome["error"] = error
            streamer.end()  # the reader must not wait for text that will never come

    generating = threading.Thread(target=generate, name="checkpoint-generate", daemon=True)
    generating.start()
    text = ""
    try:
        for piece in streamer:
            text += piece
            yield piece
    finally:
        stop.set()  # closed early (calls.py gave up): the generation ends at its next token
    generating.join()  # the streamer has ended: generate() is returning
    if "error" in outcome:
        raise outcome["error"]
    text = text.strip()
    if outcome.get("tokens", 0) >= settings["max_new_tokens"]:
        text = _whole_sentences(text)
    text, used, _ = reply_knowledge(text, given=given, context=context)
    return {"text": text, "knowledge_used": used}


def _whole_sentences(text: str) -> str:
    """A reply cut at max_new_tokens, up to its last whole sentence (when it has one)."""
    end = max(text.rfind(mark) for mark in (". ", "! ", "? ", ".\n", "!\n", "?\n"))
    return text[: end + 1] if end > 0 else text


def checkpoint_warm(*, options: dict[str, Any]) -> None:
    """Load the checkpoint now (before the room's first turn needs it); failures are only logged:
    the turn will fail on them again, into the room's apology path."""
    try:
        checkpoint_load(options=options)
    except Exception:  # noqa: BLE001
        log.exception("could not load checkpoint %s", options.get("path"))
