"""The small API that collect/ and annotate/ call. Everything here is synchronous; callers on the
event loop wrap it in database_sync_to_async so retrieval never blocks other rooms.

CONTRACT:
- passages_for_query(source_id=, query=, k=7, topic="", topic_weight=0.0, source_slug="") -> list[Passage]: top-k
  articles by TF-IDF for the query, each as {"title": str, "sentences": [str, ...]} (the lead
  paragraph split into sentences). With a topic and topic_weight > 0 the score is
  cos(query without the topic's terms, doc) + topic_weight * cos(topic, doc): a turn about "there"
  in a room about Mars finds Mars's neighbours, not every article that mentions cold, and "Who
  composed the music for Star Wars?" is asked for its composing and music, the topic counting once. Returns [] for an empty query. Raises
  IndexNotBuilt when the source has no index on disk. A caller that has the source's slug passes it
  as source_slug, which saves looking it up.
- passages_for_turn(source_id=, text=, k=7, topic="", topic_weight=1.0, source_slug="") -> list[Passage]:
  the k articles for one chat turn by its own words, as the Wizard of Wikipedia collection retrieved
  them (Dinan et al., 2019, section 3): first the articles whose titles the turn names
  (retrieval/titles.py; "Did he ever visit Florence?" → Florence), in the order named, then the
  best TF-IDF matches of the whole turn. A turn with no content word besides its topic's ("yes, I
  agree", "Tell me more about jazz" in a Jazz room; words.content_terms) is asked as
  passages_for_query asks it with the topic at `topic_weight`. The room's topic is never among the
  named ones (it is the topic passage). [] for an empty turn; IndexNotBuilt as passages_for_query.
- topic_passage(source_id=, title=, max_sentences=10) -> list[str]: the lead sentences of the
  article with exactly that title, else of the best TF-IDF match for the title; [] if none.
  Raises IndexNotBuilt only when it needs the fallback and the source has no index.
Each raises KnowledgeSource.DoesNotExist for an unknown source.

Reranking (retrieval/rerank.py; the ranker is configured by GROUNDWORK_RANKER and friends):
- rerank_passages(context=, passages=, topic=, timeout_s=) -> list[dict] | None: `context` = the
  dialogue turns, oldest first; `topic` = the chosen topic ("" when none); `passages` = dicts with "title" and "sentences" (other keys are kept). Returns
  copies with "scores" (one per sentence, sentences never reordered inside a passage), best passage
  first; None, logged, when the rerank fails, times out or too many are pending: keep the TF-IDF
  order then. Never raises for a ranker failure (ValueError for malformed passages). Blocks its thread.
- arerank_passages(...): the same for the event loop; holds no thread while it waits.
- rerank_on_worker() -> bool: whether reranks go to Celery's `rerank` queue (then a caller that
  can publish its own result, like collect.tasks.knowledge_rerank, should be queued instead of
  waited for).
- passages_rank(context=, passages=, topic=): the rerank itself, synchronous, raising on failure (what the
  Celery task `retrieval.tasks.rerank` runs).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
from django.conf import settings
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from groundwork import metrics
from retrieval.index import TermMajorIndex, index_load
from retrieval.models import LEAD_SECTION, Article, KnowledgeSource, Sentence
from retrieval.rerank import arerank_passages, passages_rank, rerank_on_worker, rerank_passages
from retrieval.titles import TitleIndex, title_index_of
from retrieval.words import content_terms, language_code

__all__ = [
    "IndexNotBuilt", "Passage", "arerank_passages", "passages_for_query", "passages_for_turn", "passages_rank",
    "rerank_on_worker", "rerank_passages", "topic_passage",
]


class Passage(TypedDict):
    title: str
    sentences: list[str]


class IndexNotBuilt(RuntimeError):
    pass


def passages_for_query(
    *, source_id: int, query: str, k: int = 7, topic: str = "", topic_weight: float = 0.0, source_slug: str = ""
) -> list[Passage]:
    if not query.strip():
        return []
    index = _index(source_id, source_slug)  # loaded once per process: not part of a retrieval's time
    with metrics.RETRIEVAL_SECONDS.time():
        if topic.strip() and topic_weight > 0:
            topic_query = _lead_cache(index).topic_query(topic)
            turn_rows, turn_weights = index.query_vector(query, without=topic_query.term_ids)
            parts = [(turn_rows, turn_weights, 1.0), (topic_query.rows, topic_query.weights, topic_weight)]
            hits = index.search_vectors(parts, k=k)
        else:
            hits = index.search(query, k=k)
        return _lead_cache(index).passages([pk for pk, _ in hits])


def passages_for_turn(
    *, source_id: int, text: str, k: int = 7, topic: str = "", topic_weight: float = 1.0, source_slug: str = ""
) -> list[Passage]:
    if not text.strip():
        return []
    index = _index(source_id, source_slug)
    cache = _lead_cache(index)
    language = str(index.meta.get("words") or "")
    if not content_terms(text, language) - content_terms(topic, language):
        return passages_for_query(source_id=source_id, query=text, k=k, topic=topic, topic_weight=topic_weight,
                                  source_slug=source_slug)
    with metrics.RETRIEVAL_SECONDS.time():
        stop_words = ENGLISH_STOP_WORDS if language_code(language) == "en" else frozenset()
        named = cache.titles(source_id).named(text, exclude=topic, stop_words=stop_words)[:k]
        hits = [pk for pk, _ in index.search(text, k=k + len(named)) if pk not in named]
        return cache.passages((named + hits)[:k])


def topic_passage(*, source_id: int, title: str, max_sentences: int = 10) -> list[str]:
    if not title.strip() or max_sentences <= 0:
        return []
    article_id = Article.objects.filter(source_id=source_id, title=title).values_list("pk", flat=True).first()
    if article_id is None:
        hits = _index(source_id).search(title, k=1)
        if not hits:
            return []
        article_id = hits[0][0]
    sentences = Sentence.objects.filter(article_id=article_id, section=LEAD_SECTION).order_by("position")
    return list(sentences.values_list("text", flat=True)[:max_sentences])


def _index(source_id: int, slug: str = "") -> TermMajorIndex:
    slug = slug or KnowledgeSource.objects.values_list("slug", flat=True).get(pk=source_id)
    try:
        return index_load(index_dir=settings.INDEX_DIR, slug=slug)
    except FileNotFoundError as error:
        raise IndexNotBuilt(f"no index for knowledge source {slug!r}: run build_index --source {slug}") from error


def _lead_passages(article_ids: list[int]) -> dict[int, Passage]:
    """The lead sentences of these articles by id, in one query; missing ones are left out."""
    rows = (
        Sentence.objects.filter(article_id__in=article_ids, section=LEAD_SECTION)
        .order_by("article_id", "position")
        .values_list("article_id", "article__title", "text")
    )
    passages: dict[int, Passage] = {}
    for article_id, title, text in rows:
        passages.setdefault(article_id, {"title": title, "sentences": []})["sentences"].append(text)
    return passages


# Articles most recently retrieved, per process: a chat's turns keep finding the same few around its
# topic, and every turn otherwise costs a query of ~30 sentence rows (the knowledge workers' largest
# statement per message).
LEAD_CACHE_ARTICLES = 20_000
# Imports only add articles, but one can be renamed or deleted in the admin: every process sees
# that within this many seconds (an index build starts a new cache at once).
LEAD_CACHE_SECONDS = 300.0
lead_cache_clock = time.monotonic  # what the expiry is measured by (tests set their own)
TOPIC_QUERIES = 5_000  # topics' query parts kept per process (a campaign has tens to thousands of topics)


@dataclass(frozen=True)
class TopicQuery:
    rows: np.ndarray  # the index rows of the topic's terms
    weights: np.ndarray  # their normalised weights
    term_ids: np.ndarray  # the topic's terms, left out of the turn's part


class _LeadCache:
    """The lead passages of one index build's articles, the least recently used dropped first, and
    the query parts of the topics asked with it."""

    def __init__(self, index: TermMajorIndex, size: int, seconds: float) -> None:
        self.index = index
        self.size = size
        self.seconds = seconds
        self._items: OrderedDict[int, tuple[float, Passage]] = OrderedDict()  # id → (read at, passage)
        self._topics: OrderedDict[str, TopicQuery] = OrderedDict()  # topic → its part of the query
        self._titles: TitleIndex | None = index.titles
        self._lock = threading.Lock()  # the chat processes retrieve from a thread pool

    def titles(self, source_id: int) -> TitleIndex:
        """The index build's titles; for a build made without them, read from the database once."""
        if self._titles is None:
            rows = Article.objects.filter(source_id=source_id).values_list("pk", "title")
            titles = title_index_of(rows.iterator(chunk_size=2000))
            with self._lock:
                self._titles = titles
        return self._titles

    def topic_query(self, title: str) -> TopicQuery:
        """The topic's part of a room's query, made once per topic (a room asks it at every turn)."""
        with self._lock:
            query = self._topics.get(title)
            if query is not None:
                self._topics.move_to_end(title)
                return query
        query = TopicQuery(*self.index.query_vector(title), term_ids=self.index.term_ids(title))
        with self._lock:
            self._topics[title] = query
            while len(self._topics) > TOPIC_QUERIES:
                self._topics.popitem(last=False)
        return query

    def passages(self, article_ids: list[int]) -> list[Passage]:
        """Those articles' passages in the given order (fresh copies: callers may change them);
        missing articles are left out."""
        now = lead_cache_clock()
        found: dict[int, Passage] = {}
        with self._lock:
            for pk in article_ids:
                item = self._items.get(pk)
                if item is not None and now - item[0] < self.seconds:
                    found[pk] = item[1]
                    self._items.move_to_end(pk)
        missing = [pk for pk in article_ids if pk not in found]
        if missing:
            read = _lead_passages(missing)
            found.update(read)
            with self._lock:
                for pk, passage in read.items():
                    self._items.pop(pk, None)  # an expired entry read again is the most recent now
                    self._items[pk] = (now, passage)
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        return [{"title": found[pk]["title"], "sentences": list(found[pk]["sentences"])} for pk in article_ids if pk in found]


_lead_caches: dict[str, _LeadCache] = {}  # source slug → the cache of its index build in use


def _lead_cache(index: TermMajorIndex) -> _LeadCache:
    key = str(index.meta.get("source", ""))
    cache = _lead_caches.get(key)
    if cache is None or cache.index is not index:
        cache = _lead_caches[key] = _LeadCache(index, LEAD_CACHE_ARTICLES, LEAD_CACHE_SECONDS)
    return cache
