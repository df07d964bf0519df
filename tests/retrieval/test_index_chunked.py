"""The chunked, memory-bounded build writes exactly the index the whole-in-memory build computes,
whatever the chunking and the number of worker processes; both query paths agree."""

from __future__ import annotations

import random
import signal
from pathlib import Path

import numpy as np
import pytest

from retrieval.index import chunked
from retrieval.index.chunked import term_major_write
from tests.retrieval.index_reference import term_major_arrays
from retrieval.index.store import index_load
from retrieval.index.term_major import ARRAYS, TermMajorIndex
from retrieval.index.vectorizer import BM25_B, BM25_K1, TOKEN_PATTERN, make_vectorizer, saturated_tf
from tests.retrieval.conftest import MakeSource

WORDS = ("wolf dog cat axolotl salamander lake river mountain city music jazz guitar tea coffee bean leaf "
         "water fire stone king queen war peace ship sea star planet moon sun tree forest").split()


def corpus(n: int, seed: int = 0) -> list[tuple[int, str]]:
    rng = random.Random(seed)
    return [(1000 + i, " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))) for i in range(n)]


def load(build: Path) -> TermMajorIndex:
    meta = {"n_features": 2**18, "token_pattern": TOKEN_PATTERN, "stop_words": "english"}
    return TermMajorIndex(meta=meta, **{name: np.load(build / f"{name}.npy", mmap_mode="r") for name in ARRAYS})


@pytest.mark.parametrize("workers", [1, 2])
def test_the_chunked_build_equals_the_single_shot_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    monkeypatch.setattr(chunked, "FIRST_CHUNK", 7)
    monkeypatch.setattr(chunked, "MIN_CHUNK", 5)  # the tiny budget below then gives many small chunks
    docs = corpus(300)
    vectorizer = make_vectorizer(n_features=2**18, token_pattern=TOKEN_PATTERN, stop_words="english")
    spilled: list[int] = []

    sizes = term_major_write(iter(docs), build=tmp_path, vectorizer=vectorizer, memory_mb=0, workers=workers,
                             progress=spilled.append)

    expected = term_major_arrays(vectorizer.transform([text for _, text in docs]))
    assert len(spilled) > 10 and sum(spilled) == 300
    assert sizes == {"n_docs": 300, "n_terms": len(expected["terms"]), "nnz": len(expected["data"])}
    for name in ("terms", "indptr", "indices"):
        assert np.array_equal(np.load(tmp_path / f"{name}.npy"), expected[name]), name
    for name in ("idf", "data"):
        assert np.allclose(np.load(tmp_path / f"{name}.npy"), expected[name], atol=1e-6), name
    assert np.load(tmp_path / "doc_ids.npy").tolist() == [pk for pk, _ in docs]
    assert not (tmp_path / ".spill").exists()


def test_the_sparse_and_dense_query_paths_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vectorizer = make_vectorizer(n_features=2**18, token_pattern=TOKEN_PATTERN, stop_words="english")
    term_major_write(iter(corpus(2000)), build=tmp_path, vectorizer=vectorizer, memory_mb=64)
    index = load(tmp_path)
    queries = [" ".join(random.Random(q).sample(WORDS, 4)) for q in range(30)]

    monkeypatch.setattr("retrieval.index.term_major.DENSE_RATIO", 10**9)
    dense = [index.search(q, k=7) for q in queries]
    monkeypatch.setattr("retrieval.index.term_major.DENSE_RATIO", 0)
    sparse = [index.search(q, k=7) for q in queries]

    for d, s in zip(dense, sparse):
        assert [pk for pk, _ in d] == [pk for pk, _ in s]
        assert np.allclose([score for _, score in d], [score for _, score in s], atol=1e-5)


@pytest.mark.django_db
def test_index_build_streams_the_source_in_bounded_chunks(make_source: MakeSource, index_dir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunked, "FIRST_CHUNK", 3)
    monkeypatch.setattr(chunked, "MIN_CHUNK", 3)
    source = make_source({f"Animal {i}": f"The animal number {i} is a {WORDS[i % len(WORDS)]}." for i in range(20)})
    from retrieval.index import index_build

    chunks: list[int] = []
    meta = index_build(source_id=source.pk, memory_mb=0, workers=2, progress=chunks.append)

    assert meta["n_docs"] == 20 and len(chunks) >= 5 and max(chunks) == 3
    hits = index_load(index_dir=index_dir, slug="kb").search("axolotl", k=3)
    assert len(hits) == 1


def _sigterm_is_default(job: object) -> bool:
    return signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_the_vectorising_processes_end_on_sigterm_in_a_process_that_handles_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Celery worker handles SIGTERM without exiting, and forked children inherit its handler:
    the pool, which ends its children with SIGTERM, would then wait for them forever."""
    monkeypatch.setattr(chunked, "_spill_chunk", _sigterm_is_default)
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        in_children = list(chunked._run(iter(range(4)), 2))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert in_children == [True] * 4


def test_a_documents_term_frequency_saturates_and_a_longer_document_needs_more_repeats() -> None:
    short, long = np.ones(4), np.full(4, 2.0)  # lengths relative to the mean
    repeats = np.array([1.0, 2.0, 10.0, 1000.0])

    in_short, in_long = saturated_tf(repeats, short), saturated_tf(repeats, long)

    assert np.all(np.diff(in_short) > 0) and in_short[-1] < BM25_K1 + 1
    assert in_short[-1] == pytest.approx(BM25_K1 + 1, rel=0.01)
    assert np.all(in_long < in_short)


def test_the_index_weighs_a_document_by_bm25_then_normalises_it() -> None:
    vectorizer = make_vectorizer(n_features=2**18, token_pattern=TOKEN_PATTERN, stop_words=None)
    counts = vectorizer.transform(["cat cat cat", "dog"])  # lengths: 3 + 2 bigrams = 5, and 1; mean 3
    arrays = term_major_arrays(counts)
    k1, b = BM25_K1, BM25_B

    def bm25(tf: float, length: float) -> float:
        return tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / 3))

    idf = np.log(3 / 2) + 1  # each term is in one of the two documents
    cat, cat_cat = bm25(3, 5) * idf, bm25(2, 5) * idf
    norm = np.hypot(cat, cat_cat)
    first_doc = arrays["data"][arrays["indices"] == 0]

    assert sorted(first_doc) == pytest.approx(sorted([cat / norm, cat_cat / norm]), rel=1e-5)
