"""The whole-collection-in-memory build: weight a (documents x hashed terms) count matrix and
transpose it at once. Memory grows with the collection, so index_build uses the chunked writer;
this stays as the reference the chunked build is tested against."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from retrieval.index.vectorizer import saturated_tf, smoothed_idf


def term_major_arrays(counts: sp.csr_matrix) -> dict[str, np.ndarray]:
    """terms/idf/indptr/indices/data of the term-major index of raw counts (documents x hashed terms)."""
    n_docs = counts.shape[0]
    terms, df = np.unique(counts.indices, return_counts=True)
    idf = smoothed_idf(df, n_docs)
    # Columns renumbered to present terms only: a row per possible hash would cost 2**24 indptr slots.
    columns = np.searchsorted(terms, counts.indices).astype(np.int32)
    lengths = np.asarray(counts.sum(axis=1, dtype=np.float64)).ravel()
    relative = lengths / lengths.mean() if n_docs and lengths.any() else np.ones(n_docs)
    weights = saturated_tf(counts.data, relative[np.repeat(np.arange(n_docs), np.diff(counts.indptr))]) * idf[columns]
    docs = sp.csr_matrix((weights, columns, counts.indptr), shape=(n_docs, len(terms)))
    if docs.nnz:  # sklearn refuses an empty matrix (a source without articles)
        docs = normalize(docs, norm="l2", copy=False)
    by_term = docs.T.tocsr()
    by_term.sort_indices()
    return {
        "terms": terms.astype(np.int64),
        "idf": idf,
        "indptr": by_term.indptr.astype(np.int64),
        "indices": by_term.indices.astype(np.int32),
        "data": by_term.data.astype(np.float32),
    }
