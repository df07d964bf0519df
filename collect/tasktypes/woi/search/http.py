"""A search server speaking the contract of the Wizard of Internet collection (ParlAI's
SearchEngineRetriever, parlai/agents/rag/retrieve_api.py): a form-encoded POST of `q` (the query)
and `n` (how many documents), answered with HTTP 200 and a JSON object whose `response` is a list
of documents, each with a string `content` and, optionally, `url` and `title`. A document's
content is split into sentences at newlines, each stripped, blank ones dropped (as ParlAI does).

Anything else fails the search with a message saying what came: no connection (DOWN), no answer
in time (SLOW, also from the caller's overall timeout), another status (ERROR), or an answer that
is not that JSON (GARBAGE). Strings holding NUL or a lone surrogate are refused as garbage: neither
can be stored or shown. The documents beyond `n` are dropped."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlencode

from collect.tasktypes.woi.search import DOWN, ERROR, GARBAGE, SLOW, SearchFailed
from groundwork.surrogates import lone_surrogate

MAX_ANSWER_BYTES = 4 * 2**20


def http_search(*, url: str, query: str, n: int, timeout_s: float) -> list[dict[str, Any]]:
    body = urlencode({"q": query, "n": n}).encode()
    request = urllib.request.Request(
        url, data=body, method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as reply:  # the researcher's search server
            status = reply.status
            raw = reply.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as error:
        raise SearchFailed(ERROR, f"the search server answered HTTP {error.code}") from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            raise SearchFailed(SLOW, f"the search server did not answer within {timeout_s:g} s") from None
        raise SearchFailed(DOWN, f"the search server cannot be reached: {error.reason}") from None
    except TimeoutError:  # socket.timeout is an alias of it
        raise SearchFailed(SLOW, f"the search server did not answer within {timeout_s:g} s") from None
    except (OSError, http.client.HTTPException) as error:
        raise SearchFailed(DOWN, f"the search server cannot be reached: {error}") from None
    if status != 200:
        raise SearchFailed(ERROR, f"the search server answered HTTP {status}")
    if len(raw) > MAX_ANSWER_BYTES:
        raise SearchFailed(GARBAGE, f"the search server's answer is larger than {MAX_ANSWER_BYTES // 2**20} MB")
    return documents_of(raw, n)


def documents_of(raw: bytes, n: int) -> list[dict[str, Any]]:
    """The documents of a search server's answer, as the dataset stores them; SearchFailed(GARBAGE)
    naming what is wrong and where."""
    try:
        answer = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise SearchFailed(GARBAGE, "the search server's answer is not JSON") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("response"), list):
        raise SearchFailed(GARBAGE, "the search server's answer has no \"response\" list of documents")
    documents = []
    for index, item in enumerate(answer["response"][:n]):
        where = f"document {index}"
        if not isinstance(item, dict):
            raise SearchFailed(GARBAGE, f"{where} of the search server's answer is not a JSON object")
        content, url, title = item.get("content"), item.get("url", ""), item.get("title", "")
        if not isinstance(content, str):
            raise SearchFailed(GARBAGE, f"{where} of the search server's answer has no string \"content\"")
        for name, value in (("url", url), ("title", title)):
            if not isinstance(value, str):
                raise SearchFailed(GARBAGE, f"{where} of the search server's answer has a {name} that is not a string")
        for name, value in (("content", content), ("url", url), ("title", title)):
            if "\x00" in value or lone_surrogate(value) is not None:
                raise SearchFailed(GARBAGE, f"{where} of the search server's answer has a {name} that is not valid text")
        sentences = [line.strip() for line in content.split("\n") if line.strip()]
        documents.append({"content": sentences, "url": url, "title": title})
    return documents
