"""Inter-annotator agreement on plain data.

- Fleiss' kappa (statsmodels, BSD) for relevance: every (item, candidate) is a subject rated
  selected / not selected by the same number of annotators.
- Krippendorff's alpha (NLTK's AnnotationTask, Apache 2.0) for dialog acts as Curiosity computed it:
  every (message, act) pair is a unit and each annotator's value is yes or no; annotators may differ
  from unit to unit (missing values are fine).
- Krippendorff's alpha from value counts (`krippendorff_alpha_counts`): the same nominal alpha when
  only how many raters gave each value is known (an imported WOW++ file: votes per sentence out of 9
  or 10), computed here from the coincidence matrix (Krippendorff 2011, section C).
- Per annotator, agreement with the majority of the *other* annotators of each unit (ties skipped).
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
    """Nominal alpha from (coder, unit, value) triples. None when no unit has two values."""
    data = [(str(coder), str(unit), value) for coder, unit, value in triples]
    per_unit = Counter(unit for _, unit, _ in data)
    if not any(n >= 2 for n in per_unit.values()):
        return None
    from nltk.metrics.agreement import AnnotationTask

    return float(AnnotationTask(data=data).alpha())


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
