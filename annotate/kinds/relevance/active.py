"""Active selection of relevance items: the contexts where the live ranker is least certain, i.e.
where the scores of its two best candidate sentences are closest, so that annotators' votes go
where they teach the retrained ranker (retrieval/training) most. The candidates are those the item
shows; the ranker reads the same recent turns as the live rerank (collect.selectors.CONTEXT_TURNS)."""

from __future__ import annotations

from collections.abc import Iterable

from annotate.services.jobs import ItemSpec
from collect.selectors import CONTEXT_TURNS
from retrieval.rankers import Candidate, SentenceRanker


def specs_least_certain(specs: Iterable[ItemSpec], *, limit: int, ranker: SentenceRanker) -> list[ItemSpec]:
    """The `limit` specs with the smallest top-2 score margin, in their original order; items with
    fewer than two candidates have nothing to be unsure about and are left out."""
    margins: list[tuple[float, int, ItemSpec]] = []
    for position, spec in enumerate(specs):
        payload = spec.payload
        candidates = [Candidate(c["article"], c["sentence"]) for c in payload["candidates"]]
        if len(candidates) < 2:
            continue
        scores = sorted(ranker.score(payload["turns"][-CONTEXT_TURNS:], candidates, topic=payload["topic"]), reverse=True)
        margins.append((float(scores[0] - scores[1]), position, spec))
    chosen = sorted(margins, key=lambda row: (row[0], row[1]))[:limit]
    return [spec for _, _, spec in sorted(chosen, key=lambda row: row[1])]
