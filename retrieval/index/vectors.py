"""Sentence vectors of a knowledge source: every sentence encoded once by the MiniLM bi-encoder, so
that a wizard panel's MiniLM features cost one encoding of the dialogue plus a lookup, not an
encoding of its ~60 candidate sentences (~0.5 s on a CPU).

Stored beside the source's TF-IDF index, as its own published build (INDEX_DIR/<slug>.vectors ->
.builds/<slug>.vectors/<build>/): keys.npy (sorted 64-bit hashes of the text the ranker encodes,
"title: sentence"), vectors.npy (float16 rows aligned with the keys) and meta.json. Keyed by text
rather than by sentence id, so a panel needs nothing but its candidates to find them.

A build is resumable: it encodes the source's sentences in id order, one chunk file per batch under
INDEX_DIR/.vectors-work/<slug>/, and a build started again after a crash starts after the last
chunk written. Sentences that already have a vector in the published build are copied, not
encoded again, so the build that follows every index build costs little when nothing changed."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings

from groundwork.file_lock import file_lock_exclusive
from retrieval.index.store import build_dir_create, build_publish, published_load
from retrieval.models import Sentence
from retrieval.rankers import ENCODER, Candidate, encoded_text

if TYPE_CHECKING:
    from retrieval.rankers.embedder import Embedder

log = logging.getLogger(__name__)

SUFFIX = ".vectors"
WORK = ".vectors-work"
CHUNK = 2048  # sentences per chunk file: what a crash can cost, and what one encode call holds


class VectorsBusy(RuntimeError):
    """Another build of the same source's vectors is running."""


def vectors_mode() -> str:
    """settings.SENTENCE_VECTORS (GROUNDWORK_SENTENCE_VECTORS): whether an index build is followed
    by a vectors build. auto: queued on the Celery `index` queue when there is a broker (never
    inline: it takes minutes on a CPU); on: also inline when tasks run in-process; off: only by
    build_vectors."""
    return str(settings.SENTENCE_VECTORS)


def vectors_after_index(source_id: int) -> str:
    """What follows an index build, by GROUNDWORK_SENTENCE_VECTORS; says what it did."""
    mode = vectors_mode()
    if mode == "off" or (mode == "auto" and settings.CELERY_TASK_ALWAYS_EAGER):
        return "sentence vectors not built (manage.py build_vectors --source SLUG builds them)"
    from retrieval.tasks import build_vectors

    result = build_vectors.delay(source_id)  # inline when tasks run in-process (mode "on")
    return "sentence vectors built" if result.ready() else f"sentence vectors queued as task {result.id}"


def sentence_key(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def sentence_keys(texts: Sequence[str]) -> np.ndarray:
    return np.fromiter((sentence_key(t) for t in texts), dtype=np.uint64, count=len(texts))


@dataclass(frozen=True)
class SentenceVectors:
    slug: str
    keys: np.ndarray  # sorted uint64
    vectors: np.ndarray  # float16, one unit-length row per key
    meta: dict[str, object]

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found mask, positions) of `keys`; positions are valid where found."""
        if not len(self.keys):
            return np.zeros(len(keys), dtype=bool), np.zeros(len(keys), dtype=np.int64)
        positions = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return self.keys[positions] == keys, positions


def vectors_load(*, index_dir: Path, slug: str) -> SentenceVectors | None:
    """The published vectors of `slug`, memory-mapped once per process; None when there are none."""

    def load(build: Path, meta: dict[str, object]) -> SentenceVectors:
        return SentenceVectors(
            slug=slug, keys=np.load(build / "keys.npy", mmap_mode="r"),
            vectors=np.load(build / "vectors.npy", mmap_mode="r"), meta=meta,
        )

    try:
        return published_load(index_dir / f"{slug}{SUFFIX}", load)
    except (FileNotFoundError, NotADirectoryError):
        return None


def vectors_all(index_dir: Path | None = None) -> list[SentenceVectors]:
    """Every source's published vectors under INDEX_DIR made by this version's encoder."""
    index_dir = index_dir or settings.INDEX_DIR
    try:
        names = sorted(entry.name for entry in os.scandir(index_dir) if entry.name.endswith(SUFFIX))
    except FileNotFoundError:
        return []
    found = (vectors_load(index_dir=index_dir, slug=name[: -len(SUFFIX)]) for name in names)
    return [v for v in found if v is not None and v.meta.get("model") == ENCODER]


def stored_share(texts: Sequence[str]) -> float:
    """The share of these encoder texts that some source's vectors hold."""
    if not texts:
        return 0.0
    keys = sentence_keys(texts)
    found = np.zeros(len(keys), dtype=bool)
    for stored in vectors_all():
        found |= stored.lookup(keys)[0]
    return float(found.mean())


def vectors_build(
    *, source_id: int, embedder: Embedder | None = None, progress: Callable[[int, int], None] = lambda done, total: None,
) -> dict[str, object]:
    """Encode every sentence of the source not encoded yet and publish the source's vectors.
    `progress(done, total)` is called after each chunk. Raises VectorsBusy when another build of
    the same source runs."""
    from retrieval.models import KnowledgeSource

    source = KnowledgeSource.objects.get(pk=source_id)
    index_dir = settings.INDEX_DIR
    work = index_dir / WORK / source.slug
    work.mkdir(parents=True, exist_ok=True)
    busy = VectorsBusy(f"the sentence vectors of {source.slug!r} are being built by another process")
    with file_lock_exclusive(work / "lock", busy=busy):
        if embedder is None:
            from retrieval.rankers.embedder import Embedder

            embedder = Embedder()
        previous = vectors_load(index_dir=index_dir, slug=source.slug)
        if previous is not None and previous.meta.get("model") != embedder.model_id:
            previous = None  # another encoder's vectors: nothing to reuse
        sentences = Sentence.objects.filter(article__source_id=source_id)
        total = sentences.count()
        after, done = _resume_point(work)
        progress(done, total)
        encoded = reused = 0
        for last_pk, keys, texts in _chunks(sentences.filter(pk__gt=after)):
            rows = np.zeros((len(keys), embedder.dimension), dtype=np.float16)
            missing = np.ones(len(keys), dtype=bool)
            if previous is not None:
                found, positions = previous.lookup(keys)
                rows[found] = previous.vectors[positions[found]]
                missing = ~found
            if missing.any():
                rows[missing] = embedder.encode([t for t, m in zip(texts, missing, strict=True) if m]).astype(np.float16)
            encoded, reused = encoded + int(missing.sum()), reused + int((~missing).sum())
            _chunk_write(work, last_pk, keys, rows)
            done += len(keys)
            progress(done, total)
        keys, rows = _chunks_merge(work, embedder.dimension)
        build = build_dir_create(index_dir=index_dir, slug=f"{source.slug}{SUFFIX}")
        np.save(build / "keys.npy", keys)
        np.save(build / "vectors.npy", rows)
        meta: dict[str, object] = {
            "source": source.slug, "model": embedder.model_id, "dimension": embedder.dimension,
            "sentences": len(keys), "bytes": int(keys.nbytes + rows.nbytes),
            "built_at": datetime.now(UTC).isoformat(),
        }
        build_publish(index_dir=index_dir, slug=f"{source.slug}{SUFFIX}", build=build, meta=meta)
        for chunk in work.glob("upto-*.npz"):
            chunk.unlink()
    log.info("sentence vectors of %s: %d sentences (%d encoded, %d reused)", source.slug, len(keys), encoded, reused)
    return {**meta, "encoded": encoded, "reused": reused}


def vectors_overview() -> list[dict[str, object]]:
    """Per knowledge source with sentences, what a staff page shows: its sentences, its published
    vectors (None when there are none) and the sentences a build under way, or one that stopped,
    has encoded so far."""
    from django.db.models import Count

    from retrieval.models import KnowledgeSource

    rows = []
    sources = KnowledgeSource.objects.annotate(sentences=Count("articles__sentences")).filter(sentences__gt=0)
    for source in sources.order_by("slug"):
        published = vectors_load(index_dir=settings.INDEX_DIR, slug=source.slug)
        work = settings.INDEX_DIR / WORK / source.slug
        rows.append({
            "slug": source.slug, "sentences": source.sentences,
            "published": dict(published.meta) if published else None,
            "mib": int(published.meta.get("bytes", 0)) / 2**20 if published else 0,
            "pending": _resume_point(work)[1] if work.is_dir() else 0,
        })
    return rows


def _chunks(sentences) -> Iterator[tuple[int, np.ndarray, list[str]]]:
    # One short query per chunk, not a cursor held open while a large source is encoded (hours).
    after = 0
    while True:
        batch = list(sentences.filter(pk__gt=after).order_by("pk").values_list("pk", "article__title", "text")[:CHUNK])
        if not batch:
            return
        after = batch[-1][0]
        yield _chunk_of(batch)


def _chunk_of(batch: list[tuple[int, str, str]]) -> tuple[int, np.ndarray, list[str]]:
    texts = [encoded_text(Candidate(title, text)) for _, title, text in batch]
    return batch[-1][0], sentence_keys(texts), texts


def _chunk_write(work: Path, last_pk: int, keys: np.ndarray, rows: np.ndarray) -> None:
    partial = work / f"upto-{last_pk:015d}.partial.npz"
    np.savez(partial, keys=keys, vectors=rows)
    partial.replace(work / f"upto-{last_pk:015d}.npz")  # a chunk is there whole or not at all


def _resume_point(work: Path) -> tuple[int, int]:
    """(last sentence id encoded, sentences encoded) by the chunks a stopped build left."""
    chunks = sorted(work.glob("upto-*[0-9].npz"))
    if not chunks:
        return 0, 0
    done = 0
    for chunk in chunks:
        with np.load(chunk) as data:
            done += len(data["keys"])
    return int(chunks[-1].name[5:20]), done


def _chunks_merge(work: Path, dimension: int) -> tuple[np.ndarray, np.ndarray]:
    keys, rows = [np.zeros(0, dtype=np.uint64)], [np.zeros((0, dimension), dtype=np.float16)]
    for chunk in sorted(work.glob("upto-*[0-9].npz")):
        with np.load(chunk) as data:
            keys.append(data["keys"])
            rows.append(data["vectors"])
    all_keys = np.concatenate(keys)
    # Sentences with the same text (and title) share one row.
    unique, first = np.unique(all_keys, return_index=True)
    return unique, np.concatenate(rows)[first]
