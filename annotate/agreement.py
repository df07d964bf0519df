"""Inter-annotator agreement on plain data.

- Fleiss' kappa (statsmodels, BSD) for relevance: every (item, candidate) is a subject rated
  selected / not selected by the same number of annotators.
- Krippendorff's nominal alpha, one implementation for every figure: `krippendorff_alpha_counts`
  computes it from the coincidence matrix of per-unit value counts (Krippendorff 2011, "Computing
  Krippendorff's Alpha-Reliability", section C), which is all an imported WOW++ file holds (votes per
  sentence out of 9 or 10); `krippendorff_alpha` takes (coder, unit, value) triples (Curiosity's
  dialog acts: every (message, act) pair a unit, each annotator's value yes or no; pairwise winners;
  relevance votes so far), counts them per unit and calls it. Annotators may differ from unit to unit.
  Alpha is undefined (None), never a number, when no unit has two values or every pairable value is
  the same (expected disagreement 0, so alpha is 0/0). The `krippendorff` package is GPL and NLTK's
  AnnotationTask answers 1.0 for that 0/0, so neither is used.
- Per annotator, agreement with the majority of the *other* annotators of each unit (ties skipped).
- An answer's agreement with a known one: the Jaccard overlap of their yes-decisions.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from typing import Hashable, Iterable, Sequence

Unit = Hashable
Coder = Hashable


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Subjects in rows, categories in columns, each cell the raters who chose that category; every
    row must sum to the same number of raters (at least 2). None when undefined (no subjects, or
    every rating in one category)."""
    if not table:
        return None
    raters = {sum(row) for row in table}
    if len(raters) != 1 or raters.pop() < 2:
        raise ValueError("every subject needs the same number of raters, at least 2")
    # Imported here: statsmodels (and NLTK below) take seconds to import, and only reports need them.
    from statsmodels.stats.inter_rater import fleiss_kappa as _statsmodels_fleiss

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when all ratings share one category
        kappa = float(_statsmodels_fleiss(table, method="fleiss"))
    return kappa if math.isfinite(kappa) else None


def krippendorff_alpha(triples: Iterable[tuple[Coder, Unit, Hashable]]) -> float | None:
    """Nominal alpha from (coder, unit, value) triples, a coder giving at most one value per unit
    (a repeated (coder, unit) keeps its last value). None when undefined: no unit has two values, or
    every pairable value is the same."""
    values_of: dict[Unit, dict[Coder, Hashable]] = defaultdict(dict)
    for coder, unit, value in triples:
        values_of[unit][coder] = value
    categories: dict[Hashable, int] = {}
    units = []
    for values in values_of.values():
        counts = Counter(categories.setdefault(value, len(categories)) for value in values.values())
        units.append(counts)
    width = len(categories)
    return krippendorff_alpha_counts([[counts.get(c, 0) for c in range(width)] for counts in units])


def krippendorff_alpha_counts(units: Iterable[Sequence[int]]) -> float | None:
    """Nominal alpha from per-unit counts: each unit a list, the raters who gave value 0, 1, ...;
    units may have any number of raters (a unit with fewer than 2 pairs with nothing and is left
    out, as in the definition). None when undefined (no pairable values, or all values alike)."""
    coincidence: dict[tuple[int, int], float] = defaultdict(float)
    for counts in units:
        m = sum(counts)
        if m < 2:
            continue
        for c, n_c in enumerate(counts):
            for k, n_k in enumerate(counts):
                pairs = n_c * (n_k - 1) if c == k else n_c * n_k
                if pairs:
                    coincidence[(c, k)] += pairs / (m - 1)
    marginals: dict[int, float] = defaultdict(float)
    for (c, _), value in coincidence.items():
        marginals[c] += value
    n = sum(marginals.values())
    expected = n * n - sum(v * v for v in marginals.values())
    if n <= 1 or expected <= 0:
        return None
    observed = n - sum(value for (c, k), value in coincidence.items() if c == k)
    return 1.0 - (n - 1) * observed / expected


def majority_agreement(decisions: dict[Unit, dict[Coder, Hashable]]) -> dict[Coder, tuple[int, int]]:
    """coder -> (units agreeing with the other coders' majority, units where that majority exists)."""
    tally: dict[Coder, list[int]] = defaultdict(lambda: [0, 0])
    for values in decisions.values():
        counts = Counter(values.values())
        for coder, value in values.items():
            others = counts.copy()
            others[value] -= 1
            ranked = others.most_common(2)
            if not ranked or ranked[0][1] == 0 or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
                continue
            tally[coder][1] += 1
            tally[coder][0] += ranked[0][0] == value
    return {coder: (agree, total) for coder, (agree, total) in tally.items()}


def jaccard(given: set[Hashable], known: set[Hashable]) -> float:
    """|given ∩ known| / |given ∪ known|; 1.0 when both are empty (both say "none")."""
    union = given | known
    return len(given & known) / len(union) if union else 1.0
