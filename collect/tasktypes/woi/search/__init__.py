"""Where the wizard's searches go. A backend takes a query and a number of documents and gives
back documents as the Wizard of Internet dataset stores them, `{"content": [sentence, ...], "url":
str, "title": str}` (the key order of ParlAI's SearchEngineRetriever), or raises SearchFailed with
a code the page translates and a message for the researcher:

- `store` (store.py): the campaign's own knowledge source through its first-stage TF-IDF index
  (retrieval.services), the lead paragraph of each article found; works offline.
- `http` (http.py): a search server speaking the contract WoI's collection used (ParlAI's
  `parlai/agents/rag/retrieve_api.py`): a form POST of `q` and `n`, a JSON answer
  `{"response": [{"url", "title", "content"}, ...]}` whose content is split into sentences at
  newlines.

`documents_search` runs the campaign's backend on a thread of its own and gives up after the
campaign's timeout (`search.timeout_s`), so a slow backend fails the search, never the turn."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from django.db import close_old_connections

from collect.tasktypes.woi.config import SearchConfig

# Codes the page has a text for (static/woi/search.js); the message says more, in English.
DOWN = "search_down"  # unreachable, refused, no index
SLOW = "search_slow"  # no answer within the campaign's timeout
GARBAGE = "search_garbage"  # an answer that is not a list of documents
ERROR = "search_error"  # an HTTP error status, or the backend failed otherwise
UNUSABLE = "search_unusable"  # the campaign's search settings cannot be used

# Searches at once per process; a search waiting for a thread counts against its own timeout.
THREADS = 8
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0
_pool_lock = threading.Lock()


def _search_pool() -> ThreadPoolExecutor:
    """This process's pool. A forked process (a test server, a Celery worker forked after a
    search) inherits its parent's pool without its threads, which would never run a search."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool, _pool_pid = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="woi-search"), os.getpid()
        return _pool


class SearchFailed(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Source:
    """The campaign's knowledge source, for the store backend."""

    id: int
    slug: str
    language: str


def documents_search(*, config: SearchConfig, source: Source, query: str) -> list[dict[str, Any]]:
    """The documents for `query` from the campaign's backend (SearchFailed when none can be had)."""
    if config.broken:
        raise SearchFailed(UNUSABLE, config.broken)
    future = _search_pool().submit(_search, config, source, query)
    try:
        return future.result(timeout=config.timeout_s)
    except FutureTimeout:
        future.cancel()  # if it has not started; a started one ends with its own socket timeout
        raise SearchFailed(SLOW, f"the search did not answer within {config.timeout_s:g} s") from None


def _search(config: SearchConfig, source: Source, query: str) -> list[dict[str, Any]]:
    if config.backend == "http":
        from collect.tasktypes.woi.search.http import http_search

        return http_search(url=config.url, query=query, n=config.documents, timeout_s=config.timeout_s)
    from collect.tasktypes.woi.search.store import store_search

    close_old_connections()  # this pool's threads keep their connections between searches
    try:
        return store_search(source=source, query=query, n=config.documents, url_template=config.url_template)
    finally:
        close_old_connections()
