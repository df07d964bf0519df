"""Calling a registered model: a Python class by dotted path, an HTTP endpoint, an
OpenAI-compatible endpoint (openai_adapter.py) or a local checkpoint (checkpoints.py), with a
timeout per attempt, retries and a per-process concurrency limit. Whatever goes wrong, the caller
gets a CallResult with the apology text (in the context's language) and the error; the failure is logged. Blocking: call it
off the event loop (a thread, or the Celery `models` queue)."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.module_loading import import_string
from django.utils.translation import gettext_noop

from collect.modelchat.models import EvalModel, EvalModelKind
from groundwork import metrics

log = logging.getLogger(__name__)

APOLOGY = gettext_noop("Sorry, I lost my train of thought there. Could you say that again, or tell me more?")
# An endpoint's response body beyond this is refused unread: a reply is one chat message.
MAX_RESPONSE_BYTES = 64 * 1024

# Calls run here so that a hung model costs a thread, not the caller's timeout.
_executor = ThreadPoolExecutor(max_workers=16, thread_name_prefix="model-call")
_limits: dict[tuple[int, int], threading.BoundedSemaphore] = {}
_instances: dict[tuple[int, str, str], Any] = {}
_lock = threading.Lock()


def _fresh_after_fork() -> None:
    """A forked process (a test server, a prefork worker) inherits the pool but not its threads:
    calls submitted to it would never run. Start over with a new pool and new locks."""
    global _executor, _lock
    _executor = ThreadPoolExecutor(max_workers=16, thread_name_prefix="model-call")
    _lock = threading.Lock()
    _limits.clear()


os.register_at_fork(after_in_child=_fresh_after_fork)


class ModelFailure(Exception):
    """One attempt failed; the message says how, for the log and the ModelTurn.error field."""


@dataclass(frozen=True)
class CallResult:
    text: str
    knowledge_used: str | list[Any] | None  # a sentence (WoW), or triples / their ids (DuConv)
    latency_ms: int
    attempts: int
    error: str = ""  # "" when the model answered; else the text is APOLOGY, translated


def model_respond(*, model: EvalModel, context: dict[str, Any]) -> CallResult:
    started = time.perf_counter()
    limit = _limit(model)
    if not limit.acquire(timeout=model.timeout_seconds):
        return _failed(model, context, started, 0, ModelFailure(f"busy: {model.max_concurrency} calls already running"))
    try:
        error = ModelFailure("no attempt")
        for attempt in range(1, model.retries + 2):
            try:
                text, used = _attempt(model, context)
            except ModelFailure as failure:
                error = failure
                log.warning("model %s attempt %d failed: %s", model.name, attempt, failure)
                continue
            metrics.MODEL_CALL_SECONDS.labels(model.name).observe(time.perf_counter() - started)
            return CallResult(text, used, _elapsed_ms(started), attempt)
        return _failed(model, context, started, model.retries + 1, error)
    finally:
        limit.release()


def _failed(model: EvalModel, context: dict[str, Any], started: float, attempts: int, error: ModelFailure) -> CallResult:
    log.error("model %s gave no reply after %d attempt(s): %s; the partner apologises", model.name, attempts, error)
    metrics.MODEL_CALL_SECONDS.labels(model.name).observe(time.perf_counter() - started)
    metrics.MODEL_CALL_FAILURES.labels(model.name).inc()
    with translation.override(context.get("language") or "en"):
        apology = translation.gettext(APOLOGY)  # stored as the partner's message: the worker's language
    return CallResult(apology, None, _elapsed_ms(started), attempts, str(error)[:300])


def _elapsed_ms(started: float) -> int:
    return int(round((time.perf_counter() - started) * 1000))


def _limit(model: EvalModel) -> threading.BoundedSemaphore:
    with _lock:
        key = (model.pk, model.max_concurrency)
        if key not in _limits:
            _limits[key] = threading.BoundedSemaphore(model.max_concurrency)
        return _limits[key]


def _attempt(model: EvalModel, context: dict[str, Any]) -> tuple[str, str | None]:
    call = {
        EvalModelKind.HTTP: _call_http, EvalModelKind.OPENAI: _call_openai, EvalModelKind.CHECKPOINT: _call_checkpoint,
    }.get(model.kind, _call_python)
    future = _executor.submit(call, model, context)
    try:
        raw = future.result(timeout=model.timeout_seconds)
    except FutureTimeout:
        future.cancel()
        raise ModelFailure(f"timeout: no reply within {model.timeout_seconds:g} s") from None
    except ModelFailure:
        raise
    except Exception as error:  # noqa: BLE001 - a model's own bug is one failed attempt
        raise ModelFailure(f"{type(error).__name__}: {error}") from error
    return reply_parse(raw, triples="goal" in context)


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


def _call_openai(model: EvalModel, context: dict[str, Any]) -> Any:
    from collect.modelchat.openai_adapter import openai_call  # the openai client loads only where it is used

    return openai_call(model, context)


def _call_checkpoint(model: EvalModel, context: dict[str, Any]) -> Any:
    from collect.modelchat.checkpoints import checkpoint_respond  # torch and transformers load only where used

    return checkpoint_respond(options=model.options, context=context)


def _call_python(model: EvalModel, context: dict[str, Any]) -> Any:
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


def _call_http(model: EvalModel, context: dict[str, Any]) -> Any:
    body = json.dumps(context, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(
        model.endpoint_url, data=body, method="POST", headers={"Content-Type": "application/json", "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=model.timeout_seconds) as response:  # noqa: S310 - researcher's URL
            data = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as error:
        raise ModelFailure(f"HTTP {error.code} from the endpoint") from None
    except (urllib.error.URLError, OSError) as error:
        if isinstance(error, TimeoutError) or isinstance(getattr(error, "reason", None), TimeoutError):
            raise ModelFailure(f"timeout: no reply within {model.timeout_seconds:g} s") from None
        raise ModelFailure(f"endpoint unreachable: {getattr(error, 'reason', error)}") from None
    if len(data) > MAX_RESPONSE_BYTES:
        raise ModelFailure(f"bad reply: response larger than {MAX_RESPONSE_BYTES} bytes")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ModelFailure("bad reply: not valid JSON") from None
