"""Calling a model behind an OpenAI-compatible endpoint (vLLM, TGI, llama.cpp's server, Ollama,
`transformers serve`, OpenAI itself): POST {base_url}/chat/completions through the `openai`
client, non-streaming, one request per attempt (calls.py owns the attempts, the timeout and the
concurrency limit). A 429's Retry-After is waited for when it ends within the attempt's timeout.
Every other bad answer is a ModelFailure that names it; the API key, read from the environment
variable named in the options, never appears in one."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from typing import Any

import openai

from collect.modelchat.calls import ModelFailure
from collect.modelchat.models import EvalModel
from collect.modelchat.openai_options import DEFAULT_KNOWLEDGE_SENTENCES, DEFAULT_MAX_TOKENS
from collect.modelchat.knowledge_use import reply_knowledge
from collect.modelchat.prompts import messages_build

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
    key = os.environ.get(variable, "")
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
    body: dict[str, Any] = {"model": options["model"], "messages": messages, "max_tokens": options.get("max_tokens", DEFAULT_MAX_TOKENS)}
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


def openai_call(model: EvalModel, context: dict[str, Any]) -> dict[str, Any]:
    """One attempt: the reply as {"text", "knowledge_used"} for calls.reply_parse."""
    key = api_key(model=model)
    body, numbered = request_build(model=model, context=context)
    client = _client(model, key)
    deadline = time.monotonic() + model.timeout_seconds
    while True:
        try:
            completion = client.chat.completions.create(**body, timeout=max(0.1, deadline - time.monotonic()))
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
        except openai.APIResponseValidationError as error:
            raise ModelFailure(f"bad reply: not an OpenAI chat completion: {key_redacted(str(error), key)[:200]}") from None
        except ValueError:  # the client's json.loads of the body
            raise ModelFailure("bad reply: not valid JSON") from None
    return _reply(completion, numbered=numbered, context=context, key=key)


def _reply(completion: Any, *, numbered: list[Any], context: dict[str, Any], key: str) -> dict[str, Any]:
    if not isinstance(completion, openai.types.chat.ChatCompletion):
        raise ModelFailure("bad reply: not a JSON chat completion")
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
