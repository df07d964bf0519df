"""Calling a model owner's HTTP endpoint: POST the context as JSON; the answer is the reply as
JSON ({"text", "knowledge_used"?}), or, with `Content-Type: application/x-ndjson`, the reply
streamed as JSON Lines: {"text": "<piece>"} per piece, optionally {"knowledge_used": ...} and
{"error": "<message>"} (the attempt fails with it). calls.py owns the attempts and their timeouts."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from collect.tasktypes.modelchat.calls import ModelFailure
from collect.tasktypes.modelchat.models import EvalModel

# An endpoint's response body beyond this is refused unread: a reply is one chat message.
MAX_RESPONSE_BYTES = 64 * 1024
NDJSON = "application/x-ndjson"


def http_call(model: EvalModel, context: dict[str, Any]) -> Any:
    """One attempt: the reply (a dict for calls.reply_parse), or an iterator of its pieces."""
    body = json.dumps(context, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(
        model.endpoint_url, data=body, method="POST",
        headers={"Content-Type": "application/json", "Accept": f"application/json, {NDJSON}"},
    )
    # A socket read waits at most this long: the first byte, or a streamed reply's next line.
    read_timeout = max(model.timeout_seconds, model.token_timeout_seconds)
    try:
        response = urllib.request.urlopen(request, timeout=read_timeout)  # noqa: S310 - researcher's URL
        if response.headers.get_content_type() == NDJSON:
            return _lines(response, model)
        with response:
            data = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as error:
        raise ModelFailure(f"HTTP {error.code} from the endpoint") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        raise _read_failure(error, model) from None
    if len(data) > MAX_RESPONSE_BYTES:
        raise ModelFailure(f"bad reply: response larger than {MAX_RESPONSE_BYTES} bytes")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ModelFailure("bad reply: not valid JSON") from None


def _read_failure(error: Exception, model: EvalModel) -> ModelFailure:
    if isinstance(error, TimeoutError) or isinstance(getattr(error, "reason", None), TimeoutError):
        return ModelFailure(f"timeout: no reply within {model.timeout_seconds:g} s")
    if isinstance(error, http.client.IncompleteRead):
        return ModelFailure("cut off: the endpoint closed the stream before its end")
    return ModelFailure(f"endpoint unreachable: {getattr(error, 'reason', error)}")


def _lines(response: Any, model: EvalModel) -> Iterator[str]:
    """The pieces of a JSON Lines reply; returns {"text", "knowledge_used"} once it ends."""
    text, used, read = "", None, 0
    with response:
        for number, line in enumerate(_read_lines(response, model), start=1):
            read += len(line)
            if read > MAX_RESPONSE_BYTES:
                raise ModelFailure(f"bad reply: response larger than {MAX_RESPONSE_BYTES} bytes")
            if not line.strip():
                continue
            try:
                item = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                raise ModelFailure(f"bad stream: line {number} is not JSON") from None
            if not isinstance(item, dict):
                raise ModelFailure(f"bad stream: line {number} is not a JSON object")
            if "error" in item:
                raise ModelFailure(f"the stream sent an error: {str(item['error'])[:200]}")
            if "knowledge_used" in item:
                used = item["knowledge_used"]
            piece = item.get("text", "")
            if not isinstance(piece, str):
                raise ModelFailure(f"bad stream: line {number}: text must be a string")
            text += piece
            if piece:
                yield piece
    return {"text": text, "knowledge_used": used} if used is not None else {"text": text}


def _read_lines(response: Any, model: EvalModel) -> Iterator[bytes]:
    while True:
        try:
            line = response.readline(MAX_RESPONSE_BYTES + 1)
        except (OSError, http.client.HTTPException) as error:
            raise _read_failure(error, model) from None
        if not line:
            return
        yield line
