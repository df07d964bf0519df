"""Writing a term-major TF-IDF index with memory bounded by a budget, not by the corpus.

Pass 1 vectorises the documents chunk by chunk (in worker processes when asked), sorts each
chunk's (term, document, count) entries by term and spills them to disk, counting document
frequencies and the documents' lengths (BM25's term frequency needs the mean length). Pass 2 reads the spills back in order and scatters each chunk's weighted entries
straight into the final memory-mapped arrays: a term's row starts where the document frequencies
of the terms before it say, and chunks arrive in document order, so every row ends up sorted by
document without ever holding the corpus in memory. A document lies entirely inside one chunk, so
its L2 norm is computed there too.

Memory: about `memory_mb` for the chunks in flight, plus ~40 bytes per hash bucket (n_features)
for the document frequencies and the row arrays. Disk: the spills, ~12 bytes per weight, are
deleted as the build ends."""

from __future__ import annotations

import multiprocessing
import shutil
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from multiprocessing.pool import AsyncResult
from pathlib import Path

import numpy as np
from numpy.lib.format import open_memmap
from sklearn.feature_extraction.text import HashingVectorizer

from retrieval.index.vectorizer import saturated_tf, smoothed_idf

# Peak bytes per stored weight while a chunk is vectorised and sorted (HashingVectorizer's
# intermediate lists, the CSR, the sort permutation, the spill arrays): an estimate that kept a
# worker at 292 MB (interpreter included) for a 170 MB share of a 512 MB budget in bench/index_scale.py.
BYTES_PER_WEIGHT = 64
FIRST_CHUNK = 2000  # documents; the chunks after it are sized from the weights per document seen
MIN_CHUNK, MAX_CHUNK = 500, 500_000


_Job = tuple[int, list[tuple[int, str]], HashingVectorizer, Path]
_Result = tuple[Path, int, int, float, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Spill:
    path: Path
    first_doc: int
    n_docs: int
    nnz: int
    length: float  # the chunk's documents' term counts, summed (for the collection's mean length)


def term_major_write(
    docs: Iterable[tuple[int, str]],
    *,
    build: Path,
    vectorizer: HashingVectorizer,
    memory_mb: int,
    workers: int = 1,
    progress: Callable[[int], None] = lambda done: None,
) -> dict[str, int]:
    """Write terms/idf/indptr/indices/data/doc_ids .npy files for (document id, text) pairs into
    `build`; returns {"n_docs", "n_terms", "nnz"}."""
    n_features = int(vectorizer.n_features)
    spill_dir = build / ".spill"
    spill_dir.mkdir(parents=True, exist_ok=True)
    try:
        df = np.zeros(n_features, dtype=np.int32)
        spills = list(_spill_all(docs, spill_dir, vectorizer, df, memory_mb, max(1, workers), progress))
        return _scatter(spills, df, build)
    finally:
        shutil.rmtree(spill_dir, ignore_errors=True)


def _spill_all(
    docs: Iterable[tuple[int, str]],
    spill_dir: Path,
    vectorizer: HashingVectorizer,
    df: np.ndarray,
    memory_mb: int,
    workers: int,
    progress: Callable[[int], None],
) -> Iterator[Spill]:
    budget = memory_mb * 2**20 // (workers + 1)  # chunks in flight: one per worker and one being read
    sizer = _ChunkSizer(budget)
    jobs = ((number, chunk, vectorizer, spill_dir) for number, chunk in enumerate(sizer.chunks(iter(docs))))
    first_doc = 0
    for path, n_docs, nnz, length, terms, counts in _run(jobs, workers):
        df[terms] += counts
        sizer.observe(n_docs, nnz)
        progress(n_docs)
        yield Spill(path, first_doc, n_docs, nnz, length)
        first_doc += n_docs


def _run(jobs: Iterator[_Job], workers: int) -> Iterator[_Result]:
    """_spill_chunk over the jobs, in order, on `workers` processes with at most `workers + 1` in flight.
    The jobs are read on this thread only: they come from a database cursor (Pool.imap would read
    them on its feeder thread, whose connection cannot see this thread's transaction)."""
    # A daemonic process (a Celery prefork child) may not start processes: vectorise in-process.
    if workers == 1 or multiprocessing.current_process().daemon:
        yield from map(_spill_chunk, jobs)
        return
    # fork: the workers need no Django and no state but the vectoriser they are sent.
    with multiprocessing.get_context("fork").Pool(workers, initializer=_default_signals) as pool:
        in_flight: deque[AsyncResult[_Result]] = deque()
        for job in jobs:
            in_flight.append(pool.apply_async(_spill_chunk, (job,)))
            if len(in_flight) > workers:  # one more than the workers: the next is ready when one frees up
                yield in_flight.popleft().get()
        while in_flight:
            yield in_flight.popleft().get()
        # Stopped by their end-of-work marker; the `with` would terminate them (SIGTERM) instead.
        pool.close()
        pool.join()


def _default_signals() -> None:
    """A forked worker inherits its parent's signal handlers. A Celery worker's SIGTERM handler
    stops only the worker's own main process, so the terminate() that ends a pool on an error
    would otherwise wait forever for children that ignore it."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class _ChunkSizer:
    """Chunks of documents sized so that one chunk's weights fit the budget."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        self.size = FIRST_CHUNK
        self.docs = self.weights = 0

    def observe(self, n_docs: int, nnz: int) -> None:
        self.docs += n_docs
        self.weights += nnz
        per_doc = max(self.weights / max(self.docs, 1), 1.0)
        self.size = int(min(MAX_CHUNK, max(MIN_CHUNK, self.budget / (per_doc * BYTES_PER_WEIGHT))))

    def chunks(self, docs: Iterator[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
        while chunk := list(islice(docs, self.size)):
            yield chunk


def _spill_chunk(job: _Job) -> _Result:
    """Vectorise one chunk and save its entries sorted by term (then document); returns the spill,
    its size, its documents' summed length and the chunk's (present terms, their document counts)."""
    number, chunk, vectorizer, spill_dir = job
    counts = vectorizer.transform([text for _, text in chunk])
    terms = counts.indices.astype(np.int32, copy=False)
    # Stable: within a term, entries stay in document order.
    order = np.argsort(terms, kind="stable")
    rows = np.repeat(np.arange(len(chunk), dtype=np.int32), np.diff(counts.indptr))
    path = spill_dir / f"{number:08d}.npz"
    sorted_terms = terms[order]
    np.savez(
        path,
        terms=sorted_terms,
        rows=rows[order],
        counts=counts.data[order].astype(np.float32, copy=False),
        doc_ids=np.fromiter((pk for pk, _ in chunk), dtype=np.int64, count=len(chunk)),
    )
    present, per_term = np.unique(sorted_terms, return_counts=True)
    length = float(counts.data.sum(dtype=np.float64))
    return path, len(chunk), int(counts.nnz), length, present, per_term.astype(np.int32)


def _scatter(spills: list[Spill], df: np.ndarray, build: Path) -> dict[str, int]:
    n_docs = sum(spill.n_docs for spill in spills)
    present = np.flatnonzero(df)
    n_terms, nnz = len(present), int(df.sum(dtype=np.int64))
    row_of = np.full(len(df), -1, dtype=np.int32)  # hash bucket -> row
    row_of[present] = np.arange(n_terms, dtype=np.int32)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(df[present], out=indptr[1:])
    idf = smoothed_idf(df[present].astype(np.int64), n_docs)
    mean_length = sum(spill.length for spill in spills) / n_docs if n_docs else 0.0
    np.save(build / "terms.npy", present.astype(np.int64))
    np.save(build / "idf.npy", idf)
    np.save(build / "indptr.npy", indptr)
    del df
    indices = open_memmap(build / "indices.npy", mode="w+", dtype=np.int32, shape=(nnz,))
    data = open_memmap(build / "data.npy", mode="w+", dtype=np.float32, shape=(nnz,))
    doc_ids = open_memmap(build / "doc_ids.npy", mode="w+", dtype=np.int64, shape=(n_docs,))
    cursor = indptr[:-1].copy()  # next free slot of each row
    for spill in spills:
        with np.load(spill.path) as arrays:
            terms, rows, counts = arrays["terms"], arrays["rows"], arrays["counts"]
            doc_ids[spill.first_doc : spill.first_doc + spill.n_docs] = arrays["doc_ids"]
        term_rows = row_of[terms]
        lengths = np.bincount(rows, weights=counts.astype(np.float64), minlength=spill.n_docs)
        relative = lengths / mean_length if mean_length else np.ones(spill.n_docs)
        weights = saturated_tf(counts, relative[rows]) * idf[term_rows]
        norms = np.sqrt(np.bincount(rows, weights=np.square(weights, dtype=np.float64), minlength=spill.n_docs))
        norms[norms == 0] = 1.0
        weights = (weights / norms[rows]).astype(np.float32)
        # Entry i goes to its row's cursor plus its rank among this chunk's entries of that row.
        starts = np.flatnonzero(np.r_[True, term_rows[1:] != term_rows[:-1]])
        lengths = np.diff(np.r_[starts, len(term_rows)])
        rank = np.arange(len(term_rows)) - np.repeat(starts, lengths)
        target = cursor[term_rows] + rank
        indices[target] = rows + spill.first_doc
        data[target] = weights
        cursor[term_rows[starts]] += lengths
        spill.path.unlink()
    for array in (indices, data, doc_ids):
        array.flush()
    return {"n_docs": n_docs, "n_terms": n_terms, "nnz": nnz}
