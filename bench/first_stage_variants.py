"""Variants of the first stage (the per-turn article retrieval) within TF-IDF's family, measured
side by side on the two halves of the WOW++ contexts (bench/retrieval_recall.py) and on 20
specific questions (bench/data/specific_questions.json):

- `1 + log tf`: documents weighted by 1 + log tf x smoothed idf, L2-normalised, the score
  cos(turn without the topic's terms, doc) + topic_weight x cos(topic, doc).
- `bm25 k1 b`: the documents weighted by BM25 instead (saturating tf, length normalisation
  b x document length / mean length), the same normalised queries; `bm25 k1 b, cosine`: those
  weights L2-normalised per document, as the index does (with BM25_K1 and BM25_B).
The rows below are added to the `1 + log tf` blend:
- `title w`: plus w x cos(turn, the article's title alone): articles whose title words the turn has.
- `entity w`: plus w for each article whose title the turn names (retrieval/entities.py's linking).
- `previous turn w`: plus w x cos(the turn before, doc), its topic's words left out as well.

The variants are computed in memory from the source's articles ("title + lead", as the index is
built), so none needs an index of its own; the row of the index's own weights equals the index's
figures (bench/retrieval_recall.py --half).

    .venv/bin/python bench/first_stage_variants.py [--wowpp FILE] [--source wiki-demo] [--k 7]

Uses the configured database when the source is there, else a throwaway SQLite database with the
demo knowledge (bench/_setup.py)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = ROOT / "bench" / "data" / "specific_questions.json"
from bench.retrieval_recall import DEFAULT_FILE, GOLD_SUFFIX, half_of  # noqa: E402

BM25 = [(1.2, 0.75), (2.0, 0.75), (3.0, 0.75), (5.0, 0.75), (10.0, 0.75), (3.0, 0.5), (3.0, 1.0), (1.2, 0.3)]
TITLE_WEIGHTS = [0.1, 0.25, 0.5]
ENTITY_WEIGHTS = [0.1, 0.5, 1.0]
PREVIOUS_WEIGHTS = [0.25, 0.5, 1.0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wowpp", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--source", default="wiki-demo")
    parser.add_argument("--k", type=int, default=7)
    args = parser.parse_args()
    if not args.wowpp.is_file():
        sys.exit(f"no WOW++ file at {args.wowpp} (give one with --wowpp)")
    from bench._setup import django_with_demo

    django_with_demo()
    from retrieval.models import Article, KnowledgeSource

    source = KnowledgeSource.objects.get(slug=args.source)
    articles = list(Article.objects.filter(source=source).order_by("pk").values_list("title", "lead"))
    model = Variants(articles, source.language)
    contexts = _contexts(json.loads(args.wowpp.read_text(encoding="utf-8")), set(model.titles))
    questions = [
        {"topic": q["topic"], "turn": q["turn"], "previous": "", "relevant": set(q["expected"])}
        for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))
    ]
    tune = [c for c in contexts if c["half"] == "tune"]
    held_out = [c for c in contexts if c["half"] == "held-out"]
    print(f"{args.wowpp.name}: {len(tune)} tune and {len(held_out)} held-out contexts with a relevant article in "
          f"{source.slug} ({len(articles)} articles); {len(questions)} questions; k = {args.k}")
    print(f"{'first stage':<26}{'tune recall':>12}{'w/o topic':>10}{'held-out':>10}{'w/o topic':>10}{'questions':>10}")
    for name, rank in model.variants(args.k).items():
        t, h, q = _recall(rank, tune), _recall(rank, held_out), _recall(rank, questions)
        print(f"{name:<26}{t[0]:>12.3f}{t[1]:>10.3f}{h[0]:>10.3f}{h[1]:>10.3f}{q[2]:>7} of {len(questions)}", flush=True)


def _contexts(data: dict[str, Any], titles: set[str]) -> list[dict[str, Any]]:
    contexts = []
    for key, record in data.items():
        relevant = {s["article"].removesuffix(GOLD_SUFFIX) for s in record["annotated_sentences"] if s["confidence"] >= 0.6}
        if relevant & titles:
            turns = record["turns"]
            contexts.append({"topic": record["topic"], "turn": turns[-1], "previous": turns[-2] if len(turns) > 1 else "",
                             "relevant": relevant & titles, "half": half_of(key)})
    return contexts


Rank = Callable[[dict[str, Any]], list[str]]


def _recall(rank: Rank, contexts: list[dict[str, Any]]) -> tuple[float, float, int]:
    """(recall, recall without the topic's own article, contexts with a relevant article retrieved)."""
    recalls, without, hits = [], [], 0
    for context in contexts:
        found = set(rank(context))
        recalls.append(len(found & context["relevant"]) / len(context["relevant"]))
        hits += bool(found & context["relevant"])
        others = context["relevant"] - {context["topic"]}
        if others:
            without.append(len(found & others) / len(others))
    return fmean(recalls), fmean(without) if without else float("nan"), hits


class Variants:
    """Document-major matrices of one source's articles over the terms they have."""

    def __init__(self, articles: list[tuple[str, str]], language: str) -> None:
        from retrieval.entities import trie_build
        from retrieval.index.vectorizer import DEFAULT_FEATURES, make_vectorizer, smoothed_idf
        from retrieval.words import language_code, terms_for

        self.titles = [title for title, _ in articles]
        self.vectorizer = make_vectorizer(n_features=DEFAULT_FEATURES, token_pattern=None, stop_words=None,
                                          tokenizer=terms_for(language_code(language)))
        counts = self.vectorizer.transform([f"{title}\n{lead}" for title, lead in articles]).tocsr()
        self.terms, df = np.unique(counts.indices, return_counts=True)
        self.idf = smoothed_idf(df, len(articles)).astype(np.float64)
        self.counts = self._columns(counts)
        self.lengths = np.asarray(self.counts.sum(axis=1)).ravel()
        self.title_counts = self._columns(self.vectorizer.transform(self.titles).tocsr())
        self.trie = trie_build(self.titles)
        self.position = {title: i for i, title in enumerate(self.titles)}

    def _columns(self, matrix: sp.csr_matrix) -> sp.csr_matrix:
        """The matrix over the source's terms only (others dropped)."""
        columns = np.searchsorted(self.terms, matrix.indices)
        known = columns < len(self.terms)
        known[known] = self.terms[columns[known]] == matrix.indices[known]
        rows = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))[known]
        return sp.csr_matrix((matrix.data[known].astype(np.float64), (rows, columns[known])),
                             shape=(matrix.shape[0], len(self.terms)))

    def tfidf(self, counts: sp.csr_matrix) -> sp.csr_matrix:
        weights = counts.copy()
        weights.data = (1.0 + np.log(weights.data)) * self.idf[weights.indices]
        return _l2(weights)

    def bm25(self, k1: float, b: float) -> sp.csr_matrix:
        weights = self.counts.copy()
        relative = np.repeat(self.lengths / self.lengths.mean(), np.diff(weights.indptr))
        tf = weights.data
        weights.data = self.idf[weights.indices] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * relative))
        return weights

    def query(self, text: str, without: np.ndarray | None = None) -> np.ndarray:
        """The L2-normalised tf-idf query as a dense vector over the source's terms."""
        counts = self._columns(self.vectorizer.transform([text]).tocsr())
        if without is not None:
            counts.data[np.isin(counts.indices, without)] = 0
            counts.eliminate_zeros()
        vector = np.asarray(self.tfidf(counts).todense()).ravel()
        norm = np.linalg.norm(vector)
        return vector / norm if norm else vector

    def ranker(self, docs: sp.csr_matrix, k: int, *, title: float = 0.0, entity: float = 0.0, previous: float = 0.0) -> Rank:
        titles = self.tfidf(self.title_counts) if title else None

        def rank(context: dict[str, Any]) -> list[str]:
            topic_terms = self._columns(self.vectorizer.transform([context["topic"]]).tocsr()).indices
            turn = self.query(context["turn"], topic_terms)
            scores = docs @ turn + docs @ self.query(context["topic"])
            if previous and context["previous"]:
                scores += previous * (docs @ self.query(context["previous"], topic_terms))
            if titles is not None:
                scores += title * (titles @ turn)
            if entity:
                for name in self.trie.find(context["turn"], exclude=context["topic"]):
                    scores[self.position[name]] += entity
            best = np.argsort(-scores, kind="stable")[:k]
            return [self.titles[i] for i in best if scores[i] > 0]

        return rank

    def variants(self, k: int) -> dict[str, Rank]:
        tfidf = self.tfidf(self.counts)
        found: dict[str, Rank] = {"1 + log tf": self.ranker(tfidf, k)}
        for k1, b in BM25:
            found[f"bm25 k1={k1:g} b={b:g}"] = self.ranker(self.bm25(k1, b), k)
            found[f"bm25 k1={k1:g} b={b:g}, cosine"] = self.ranker(_l2(self.bm25(k1, b)), k)
        for weight in TITLE_WEIGHTS:
            found[f"title {weight:g}"] = self.ranker(tfidf, k, title=weight)
        for weight in ENTITY_WEIGHTS:
            found[f"entity {weight:g}"] = self.ranker(tfidf, k, entity=weight)
        for weight in PREVIOUS_WEIGHTS:
            found[f"previous turn {weight:g}"] = self.ranker(tfidf, k, previous=weight)
        return found


def _l2(weights: sp.csr_matrix) -> sp.csr_matrix:
    norms = np.sqrt(np.asarray(weights.multiply(weights).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sp.csr_matrix(sp.diags(1.0 / norms) @ weights)


if __name__ == "__main__":
    main()
