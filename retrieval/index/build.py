"""Build a source's TF-IDF index from its articles ("title + lead" per article), streaming them from
the database into the chunked writer, with memory bounded by `memory_mb` (default
settings.INDEX_BUILD_MEMORY_MB) whatever the size of the source. The articles' titles are stored
beside it (retrieval/titles.py: the titles a chat turn names), ~30 bytes per title besides its text."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from django.conf import settings

from retrieval.index.chunked import term_major_write
from retrieval.index.store import build_dir_create, build_publish
from retrieval.index.vectorizer import BM25_B, BM25_K1, DEFAULT_FEATURES, TOKEN_PATTERN, make_vectorizer, stop_words_for
from retrieval.models import Article, KnowledgeSource
from retrieval.titles import TitleIndexWriter
from retrieval.words import language_code, terms_for

READ_BATCH = 2000  # rows fetched per database round trip


def build_memory_mb() -> int:
    return int(settings.INDEX_BUILD_MEMORY_MB)


def build_workers() -> int:
    """Vectorising processes: GROUNDWORK_INDEX_BUILD_WORKERS, by default one per core."""
    return int(settings.INDEX_BUILD_WORKERS)


def index_build(
    *,
    source_id: int,
    n_features: int = DEFAULT_FEATURES,
    memory_mb: int | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] = lambda done: None,
) -> dict[str, object]:
    """Build and publish the index of one source under settings.INDEX_DIR; returns its meta.
    `progress` is called with the number of articles in each chunk as it is vectorised."""
    source = KnowledgeSource.objects.get(pk=source_id)
    stop_words = stop_words_for(source.language)
    # The language's words: stems where Snowball has a stemmer, jieba's words for Chinese (retrieval/words.py).
    words = language_code(source.language)
    vectorizer = make_vectorizer(n_features=n_features, token_pattern=TOKEN_PATTERN, stop_words=stop_words,
                                 tokenizer=terms_for(words))
    build = build_dir_create(index_dir=settings.INDEX_DIR, slug=source.slug)
    titles = TitleIndexWriter()
    try:
        sizes = term_major_write(
            _article_texts(source_id, titles), build=build, vectorizer=vectorizer,
            memory_mb=build_memory_mb() if memory_mb is None else memory_mb,
            workers=workers or build_workers(), progress=progress,
        )
        titles.save(build)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)  # never leave a half-written build behind
        raise
    meta: dict[str, object] = {
        "source": source.slug,
        "n_docs": sizes["n_docs"],
        "n_features": n_features,
        "n_terms": sizes["n_terms"],
        "nnz": sizes["nnz"],
        "token_pattern": TOKEN_PATTERN,
        "stop_words": stop_words,
        "words": words,
        "tf": {"bm25": {"k1": BM25_K1, "b": BM25_B}},  # the documents' term frequency (vectorizer.saturated_tf)
        "built_at": datetime.now(UTC).isoformat(),
    }
    build_publish(index_dir=settings.INDEX_DIR, slug=source.slug, build=build, meta=meta)
    return meta


def _article_texts(source_id: int, titles: TitleIndexWriter) -> Iterator[tuple[int, str]]:
    rows = Article.objects.filter(source_id=source_id).order_by("pk").values_list("pk", "title", "lead")
    for pk, title, lead in rows.iterator(chunk_size=READ_BATCH):
        titles.add(pk, title)
        yield pk, f"{title}\n{lead}"
