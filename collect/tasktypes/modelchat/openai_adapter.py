"""Calling a model behind an OpenAI-compatible endpoint (vLLM, TGI, llama.cpp's server, Ollama,
`transformers serve`, OpenAI itself): POST {base_url}/chat/completions through the `openai`
client with `stream: true`, one request per attempt (calls.py owns the attempts, the timeouts and
the concurrency limit). The reply streams back as server-sent events, handed to calls.py piece by
piece; a server that answers with one JSON completion instead is read whole. A 429's Retry-After
is waited for when it ends within the attempt's timeout. Every other bad answer, an event that is
not a chunk, an error event or a stream that ends before its finish_reason, is a ModelFailure that
names it; the API key, read from the environment variable named in the options, never appears in
one."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import openai

from collect.tasktypes.modelchat.calls import ModelFailure
from collect.tasktypes.modelchat.models import EvalModel
from collect.tasktypes.modelchat.openai_options import DEFAULT_KNOWLEDGE_SENTENCES, DEFAULT_MAX_TOKENS, api_key_read
from collect.tasktypes.modelchat.knowledge_use import reply_knowledge
from collect.tasktypes.modelchat.prompts import messages_build

# Sent when no key variable is named: local servers want none, but the client needs one.
NO_KEY = "no-key"
SENTENCE_END = (".", "!", "?", "。", "！", "？")

_clients: dict[tuple[str, str, float], openai.OpenAI] = {}
_lock = threading.Lock()
os.register_at_fork(after_in_child=_clients.clear)  # a pooled connection must not be shared with a child


def api_key(*, model: EvalModel) -> str:
    variable = model.options.get("api_key_env")
    if not variable:
        return NO_KEY
    key = api_key_read(variable)
    if not key:
        raise ModelFailure(f"no API key: the environment variable {variable} is not set in this process")
    return key


def request_build(*, model: EvalModel, context: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """The keyword arguments of chat.completions.create (the request body), and what the prompt's
    knowledge numbers stand for."""
    options = model.options
    messages, numbered = messages_build(
        context=context, options=options, knowledge_limit=options.get("knowledge_sentences", DEFAULT_KNOWLEDGE_SENTENCES)
    )
    body: dict[str, Any] = {
        "model": options["model"], "messages": messages, "max_tokens": options.get("max_tokens", DEFAULT_MAX_TOKENS), "stream": True,
    }
    if options.get("temperature") is not None:
        body["temperature"] = options["temperature"]
    return body, numbered


def _client(model: EvalModel, key: str) -> openai.OpenAI:
    fingerprint = hashlib.sha256(key.encode()).hexdigest()  # the key is not kept as a dict key
    cache_key = (model.endpoint_url, fingerprint, model.timeout_seconds)
    with _lock:
        if cache_key not in _clients:
            _clients[cache_key] = openai.OpenAI(base_url=model.endpoint_url, api_key=key, max_retries=0, timeout=model.timeout_seconds)
        return _clients[cache_key]


def key_redacted(text: str, key: str) -> str:
    return text.replace(key, "[key]") if key and key != NO_KEY else text


def _retry_after(response: Any) -> float | None:
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return max(0.0, float(response.headers[header]) * scale)
        except (KeyError, ValueError):
            continue
    return None


def _status_failure(error: openai.APIStatusError, model: EvalModel, key: str) -> ModelFailure:
    variable = model.options.get("api_key_env")
    if error.status_code in (401, 403):
        whose = f"the key in {variable}" if variable else "no key (register the model with --api-key-env)"
        return ModelFailure(f"HTTP {error.status_code} from the endpoint: it refused {whose}")
    body = error.body.get("error", error.body) if isinstance(error.body, dict) else None
    message = body["message"] if isinstance(body, dict) and "message" in body else error.message
    return ModelFailure(f"HTTP {error.status_code} from the endpoint: {key_redacted(str(message), key)[:200]}")


def openai_call(model: EvalModel, context: dict[str, Any]) -> Iterator[str] | dict[str, Any]:
    """One attempt: the reply's pieces, returning {"text", "knowledge_used"} (for calls.py); or
    that reply at once from a server that does not stream."""
    key = api_key(model=model)
    body, numbered = request_build(model=model, context=context)
    client = _client(model, key)
    deadline = time.monotonic() + model.timeout_seconds
    while True:
        left = max(0.1, deadline - time.monotonic())
        try:
            # A read may wait for the next token as long as the model's token timeout allows.
            timeout = openai.Timeout(left, read=max(left, model.token_timeout_seconds))
            stream = client.chat.completions.create(**body, timeout=timeout)
            break
        except openai.RateLimitError as error:
            wait = _retry_after(error.response)
            if wait is None or time.monotonic() + wait >= deadline:
                after = "no Retry-After" if wait is None else f"Retry-After {wait:g} s is past the {model.timeout_seconds:g} s timeout"
                raise ModelFailure(f"HTTP 429 from the endpoint: rate limited ({after})") from None
            time.sleep(wait)
        except openai.APIStatusError as error:
            raise _status_failure(error, model, key) from None
        except openai.APITimeoutError:
            raise ModelFailure(f"timeout: no reply within {model.timeout_seconds:g} s") from None
        except openai.APIConnectionError as error:
            cause = key_redacted(str(error.__cause__ or error), key)[:200]
            raise ModelFailure(f"endpoint unreachable, or its response was cut off: {cause}") from None
    if "text/event-stream" not in stream.response.headers.get("content-type", ""):
        return _whole(stream, numbered=numbered, context=context, key=key)
    return _pieces(stream, numbered=numbered, context=context, key=key)


def _whole(stream: Any, *, numbered: list[Any], context: dict[str, Any], key: str) -> dict[str, Any]:
    """A server that answered `stream: true` with one JSON chat completion."""
    try:
        data = json.loads(stream.response.read())
    except ValueError:
        raise ModelFailure("bad reply: not valid JSON") from None
    except Exception as error:  # noqa: BLE001 - the HTTP client's own errors: the body was cut off
        raise ModelFailure(f"endpoint unreachable, or its response was cut off: {key_redacted(str(error), key)[:200]}") from None
    finally:
        stream.close()
    if not isinstance(data, dict):
        raise ModelFailure("bad reply: not a JSON chat completion")
    return _reply(openai.types.chat.ChatCompletion.construct(**data), numbered=numbered, context=context, key=key)


def _pieces(stream: Any, *, numbered: list[Any], context: dict[str, Any], key: str) -> Iterator[str]:
    """The content of each chunk as it comes; returns the whole reply once the stream finished."""
    text, finish = "", None
    with stream:
        try:
            for chunk in stream:
                choices = getattr(chunk, "choices", None)
                if not isinstance(choices, list):
                    raise ModelFailure("bad stream: an event that is not a chat completion chunk")
                if not choices:
                    continue  # a usage chunk
                delta = getattr(choices[0], "delta", None)
                if getattr(delta, "refusal", None):
                    raise ModelFailure(f"the model refused: {str(delta.refusal)[:200]}")
                piece = getattr(delta, "content", None)
                if isinstance(piece, str) and piece:
                    text += piece
                    yield piece
                finish = getattr(choices[0], "finish_reason", None) or finish
        except openai.APITimeoutError:
            raise ModelFailure(f"stalled: no token within the read timeout, after {len(text)} characters") from None
        except openai.APIConnectionError as error:
            cause = key_redacted(str(error.__cause__ or error), key)[:200]
            raise ModelFailure(f"cut off: the connection closed mid-stream, after {len(text)} characters: {cause}") from None
        except openai.APIError as error:  # an event {"error": {...}}
            raise ModelFailure(f"the stream sent an error: {key_redacted(str(error.message), key)[:200]}") from None
        except ValueError:  # an event whose data is not JSON
            raise ModelFailure("bad stream: an event that is not JSON") from None
    if finish is None:
        raise ModelFailure(f"cut off: the stream ended before its finish_reason, after {len(text)} characters")
    if finish == "content_filter":
        raise ModelFailure("the model refused: its reply was withheld by a content filter")
    if finish == "length":
        text = _whole_sentences(text)
    text, used, _ = reply_knowledge(text, given=numbered, context=context)
    if not text:
        raise ModelFailure(f"bad reply: empty content (finish_reason {finish!r})")
    return {"text": text, "knowledge_used": used}


def _reply(completion: Any, *, numbered: list[Any], context: dict[str, Any], key: str) -> dict[str, Any]:
    choices = getattr(completion, "choices", None)
    if not choices:
        error = (completion.model_extra or {}).get("error")
        if error:
            message = error.get("message", error) if isinstance(error, dict) else error
            raise ModelFailure(f"bad reply: an error object instead of choices: {key_redacted(str(message), key)[:200]}")
        raise ModelFailure("bad reply: no choices in the completion")
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise ModelFailure("bad reply: the first choice has no message")
    if getattr(message, "refusal", None):
        raise ModelFailure(f"the model refused: {str(message.refusal)[:200]}")
    if choice.finish_reason == "content_filter":
        raise ModelFailure("the model refused: its reply was withheld by a content filter")
    text = message.content if isinstance(message.content, str) else ""
    if choice.finish_reason == "length":
        text = _whole_sentences(text)
    text, used, _ = reply_knowledge(text, given=numbered, context=context)
    if not text:
        raise ModelFailure(f"bad reply: empty content (finish_reason {choice.finish_reason!r})")
    return {"text": text, "knowledge_used": used}


def _whole_sentences(text: str) -> str:
    """A reply cut at max_tokens, up to its last finished sentence (all of it when none ended)."""
    end = max(text.rfind(mark) for mark in SENTENCE_END)
    return text[: end + 1] if end > 0 else text
