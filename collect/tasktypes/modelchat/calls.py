"""Calling a registered model: a Python class by dotted path, an HTTP endpoint, an
OpenAI-compatible endpoint (openai_adapter.py) or a local checkpoint (checkpoints.py), with a
timeout per attempt, retries, and a bound on the model's calls at once with the others waiting in
turn (slots.py). Whatever goes wrong, the caller gets a CallResult with the apology text (in the
context's language) and the error; the failure is logged and counted. Blocking: call it off the
event loop (a thread, or the Celery `models` queue).

A reply comes whole (a string or {"text", "knowledge_used"?}) or streamed: the adapter returns an
iterator of text pieces, whose return value (StopIteration.value) may be the whole reply as above
(the OpenAI adapter and checkpoints give the reply without its [n] citations and with the knowledge
it used); without one, the pieces joined are the reply. The text so far goes to the page as it
grows (progress.py). A stream whose first piece does not come within the model's timeout_seconds,
whose next piece does not come within its token_timeout_seconds, or that runs past
STREAM_MAX_SECONDS fails its attempt like a call that timed out."""

from __future__ import annotations

import importlib
import json
import logging
import os
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.module_loading import import_string
from django.utils.translation import gettext_noop

from collect.tasktypes.modelchat import slots
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind
from collect.tasktypes.modelchat.progress import ReplyProgress
from groundwork import metrics

log = logging.getLogger(__name__)

APOLOGY = gettext_noop("Sorry, I lost my train of thought there. Could you say that again, or tell me more?")
# A streamed reply still coming after this long fails its attempt, however steadily it comes.
STREAM_MAX_SECONDS = 120.0
# Threads that run the adapters: a call waiting for its turn holds none (slots.py), so this bounds
# the calls running at once over all models in this process.
CALL_THREADS = 32

# Calls run here so that a hung model costs a thread, not the caller's timeout.
_executor = ThreadPoolExecutor(max_workers=CALL_THREADS, thread_name_prefix="model-call")
_instances: dict[tuple[int, str, str], Any] = {}
_lock = threading.Lock()


def _fresh_after_fork() -> None:
    """A forked process (a test server, a prefork worker) inherits the pool but not its threads:
    calls submitted to it would never run. Start over with a new pool and new locks."""
    global _executor, _lock
    _executor = ThreadPoolExecutor(max_workers=CALL_THREADS, thread_name_prefix="model-call")
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_fresh_after_fork)

# ModelFailure messages start with what went wrong: the `reason` label of metrics.MODEL_FAILURES.
_REASONS = (
    ("timeout", "timeout"), ("stalled", "stalled"), ("cut off", "cut_off"), ("the stream sent an error", "error_event"),
    ("bad reply", "bad_reply"), ("bad stream", "bad_reply"), ("HTTP", "http"), ("endpoint unreachable", "unreachable"),
    ("the model refused", "refused"), ("busy", "busy"),
)


class ModelFailure(Exception):
    """One attempt failed; the message says how, for the log and the ModelTurn.error field."""

    @property
    def reason(self) -> str:
        text = str(self)
        return next((reason for prefix, reason in _REASONS if text.startswith(prefix)), "error")


@dataclass(frozen=True)
class CallResult:
    text: str
    knowledge_used: str | list[Any] | None  # a sentence (WoW), or triples / their ids (DuConv)
    latency_ms: int
    attempts: int
    error: str = ""  # "" when the model answered; else the text is APOLOGY, translated
    first_token_ms: int | None = None  # from the call's start (its wait in the queue included); None: no reply
    last_token_ms: int | None = None
    queued_ms: int = 0  # waiting for a free place among the model's calls


@dataclass(frozen=True)
class _Reply:
    text: str
    used: str | list[Any] | None
    first_at: float  # time.perf_counter() of its first and last piece
    last_at: float


def model_respond(
    *, model: EvalModel, context: dict[str, Any], progress: ReplyProgress | None = None, ticket: str | None = None
) -> CallResult:
    """The model's reply to `context`, or the apology. `progress` shows the page the call's place in
    the queue and the text so far; `ticket` names the reply (e.g. "room:seq:model") so that a
    second call for it while this one runs raises slots.AlreadyCalling."""
    progress = progress or ReplyProgress(None, after_seq=0)
    started = time.perf_counter()
    lease = (model.retries + 1) * (max(model.timeout_seconds, STREAM_MAX_SECONDS) + 5)
    try:
        with slots.model_slot(
            model_id=model.pk or 0, limit=model.max_concurrency, ticket=ticket or uuid.uuid4().hex,
            waiting=progress.queued, patience=settings.MODEL_QUEUE_MAX_S, lease=lease,
        ) as waited:
            metrics.MODEL_QUEUE_SECONDS.labels(model.name).observe(waited)
            return _attempts(model, context, progress, started, round(waited * 1000))
    except slots.QueueTimeout:
        failure = ModelFailure(f"busy: no free place among the model's {model.max_concurrency} calls within {settings.MODEL_QUEUE_MAX_S:g} s")
        metrics.MODEL_FAILURES.labels(model.name, failure.reason).inc()
        return _failed(model, context, started, 0, failure, queued_ms=_elapsed_ms(started))


def _attempts(model: EvalModel, context: dict[str, Any], progress: ReplyProgress, started: float, queued_ms: int) -> CallResult:
    error = ModelFailure("no attempt")
    for attempt in range(1, model.retries + 2):
        if attempt > 1:
            progress.retry(attempt)
        try:
            reply = _attempt(model, context, progress)
        except ModelFailure as failure:
            error = failure
            metrics.MODEL_FAILURES.labels(model.name, failure.reason).inc()
            log.warning("model %s attempt %d failed: %s", model.name, attempt, failure)
            continue
        finally:
            progress.flush()
        metrics.MODEL_CALL_SECONDS.labels(model.name).observe(time.perf_counter() - started)
        metrics.MODEL_FIRST_TOKEN_SECONDS.labels(model.name).observe(reply.first_at - started)
        metrics.MODEL_LAST_TOKEN_SECONDS.labels(model.name).observe(reply.last_at - started)
        return CallResult(
            reply.text, reply.used, _elapsed_ms(started), attempt,
            first_token_ms=_ms(reply.first_at - started), last_token_ms=_ms(reply.last_at - started), queued_ms=queued_ms,
        )
    return _failed(model, context, started, model.retries + 1, error, queued_ms=queued_ms)


def _failed(model: EvalModel, context: dict[str, Any], started: float, attempts: int, error: ModelFailure, *, queued_ms: int = 0) -> CallResult:
    log.error("model %s gave no reply after %d attempt(s): %s; the partner apologises", model.name, attempts, error)
    metrics.MODEL_CALL_SECONDS.labels(model.name).observe(time.perf_counter() - started)
    metrics.MODEL_CALL_FAILURES.labels(model.name).inc()
    with translation.override(context.get("language") or "en"):
        apology = translation.gettext(APOLOGY)  # stored as the partner's message: the worker's language
    return CallResult(apology, None, _elapsed_ms(started), attempts, str(error)[:300], queued_ms=queued_ms)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _elapsed_ms(started: float) -> int:
    return _ms(time.perf_counter() - started)


def _attempt(model: EvalModel, context: dict[str, Any], progress: ReplyProgress) -> _Reply:
    """One attempt, on the thread pool; the pieces of a streamed reply come back through a queue
    so that each wait has its own timeout. On a timeout the adapter is told to stop (`stop`): a
    stream is closed at its next piece, a checkpoint's generation at its next token."""
    call = {
        EvalModelKind.HTTP: _call_http, EvalModelKind.OPENAI: _call_openai, EvalModelKind.CHECKPOINT: _call_checkpoint,
    }.get(model.kind, _call_python)
    _adapter_import(model.kind)
    pieces: queue.Queue[tuple[str, Any]] = queue.Queue()
    stop = threading.Event()
    begun = time.perf_counter()
    _executor.submit(_produce, call, model, context, pieces, stop)
    text, first_at, last_at = "", None, begun
    try:
        while True:
            now = time.perf_counter()
            if first_at is None:
                wait = begun + model.timeout_seconds - now
            else:
                wait = min(model.token_timeout_seconds, begun + STREAM_MAX_SECONDS - now)
            try:
                kind, value = pieces.get(timeout=max(0.0, wait))
            except queue.Empty:
                if first_at is None:
                    raise ModelFailure(f"timeout: no reply within {model.timeout_seconds:g} s") from None
                if time.perf_counter() - begun >= STREAM_MAX_SECONDS - 0.01:
                    raise ModelFailure(f"stalled: the streamed reply was still coming after {STREAM_MAX_SECONDS:g} s") from None
                raise ModelFailure(f"stalled: no token for {model.token_timeout_seconds:g} s after {len(text)} characters") from None
            if kind == "error":
                raise value
            if kind == "end":
                break
            last_at = time.perf_counter()
            first_at = first_at if first_at is not None else last_at
            text += value
            if len(text) > 4 * settings.MESSAGE_MAX_CHARS:  # citations come off later: allow for them
                raise ModelFailure(f"bad reply: a stream of more than {4 * settings.MESSAGE_MAX_CHARS} characters")
            progress.text(text)
    finally:
        stop.set()
    arrived = time.perf_counter()
    streamed = first_at is not None
    reply, used = reply_parse(text if streamed and value is None else value, triples="goal" in context)
    return _Reply(reply, used, first_at if streamed else arrived, last_at if streamed else arrived)


def _produce(call: Any, model: EvalModel, context: dict[str, Any], pieces: queue.Queue, stop: threading.Event) -> None:
    """On the pool: run the adapter; put ("piece", text)..., then ("end", reply or None) or ("error", ModelFailure)."""
    try:
        raw = call(model, context, stop)
        if not isinstance(raw, Iterator):
            pieces.put(("end", raw))
            return
        try:
            while not stop.is_set():
                try:
                    piece = next(raw)
                except StopIteration as end:
                    pieces.put(("end", end.value))
                    return
                if not isinstance(piece, str):
                    raise ModelFailure(f"bad stream: a piece of the reply must be text, not {type(piece).__name__}")
                if piece:
                    pieces.put(("piece", piece))
        finally:
            close = getattr(raw, "close", None)
            if close is not None:
                close()  # a generator's own cleanup: the HTTP response, the generation thread
    except ModelFailure as failure:
        pieces.put(("error", failure))
    except Exception as error:  # noqa: BLE001 - a model's own bug is one failed attempt
        pieces.put(("error", ModelFailure(f"{type(error).__name__}: {error}")))


def reply_parse(raw: Any, *, triples: bool = False) -> tuple[str, str | list[Any] | None]:
    """A model's reply, a string or {"text", "knowledge_used"?}, as (text, knowledge_used). With
    `triples` (a DuConv context) knowledge_used is a list (of triple ids or triples), else a string."""
    if isinstance(raw, str):
        raw = {"text": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise ModelFailure('bad reply: expected {"text": string, "knowledge_used"?: string}')
    text = raw["text"].strip()
    if not text:
        raise ModelFailure("bad reply: empty text")
    if len(text) > settings.MESSAGE_MAX_CHARS:
        raise ModelFailure(f"bad reply: {len(text)} characters, more than {settings.MESSAGE_MAX_CHARS}")
    used = raw.get("knowledge_used")
    if triples and used is not None and not isinstance(used, list):
        raise ModelFailure("bad reply: knowledge_used must be a list of triple ids or [subject, property, value] triples")
    if not triples and used is not None and not isinstance(used, str):
        raise ModelFailure("bad reply: knowledge_used must be a string")
    return text, used


def _adapter_import(kind: str) -> None:
    """An adapter's module, imported before an attempt's clock starts: the openai client takes
    seconds to import on a busy machine, which must not count against a first token's timeout."""
    module = {EvalModelKind.OPENAI: "openai_adapter", EvalModelKind.HTTP: "http_adapter"}.get(kind)
    if module is not None:
        importlib.import_module(f"collect.tasktypes.modelchat.{module}")


def _call_openai(model: EvalModel, context: dict[str, Any], stop: threading.Event) -> Any:
    from collect.tasktypes.modelchat.openai_adapter import openai_call  # the openai client loads only where it is used

    return openai_call(model, context)


def _call_checkpoint(model: EvalModel, context: dict[str, Any], stop: threading.Event) -> Any:
    from collect.tasktypes.modelchat.checkpoints import checkpoint_stream  # torch and transformers load only where used

    return checkpoint_stream(options=model.options, context=context, stop=stop)


def _call_python(model: EvalModel, context: dict[str, Any], stop: threading.Event) -> Any:
    return _instance(model).respond(context)


def _instance(model: EvalModel) -> Any:
    """One instance per model and settings per process: a bot may build an index when created."""
    key = (model.pk, model.dotted_path, json.dumps(model.options, sort_keys=True))
    with _lock:
        if key in _instances:
            return _instances[key]
    try:
        cls = import_string(model.dotted_path)
    except ImportError as error:
        raise ModelFailure(f"cannot import {model.dotted_path!r}: {error}") from error
    instance = cls(**model.options)
    with _lock:
        return _instances.setdefault(key, instance)


def _call_http(model: EvalModel, context: dict[str, Any], stop: threading.Event) -> Any:
    from collect.tasktypes.modelchat.http_adapter import http_call

    return http_call(model, context)
