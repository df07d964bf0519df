"""Agreement on a relevance job's finished items, saying what each statistic counts.

A unit is one (context, candidate sentence) pair; each annotator's value is "selected" or "not
selected". Contexts may have different numbers of annotators (most of a WOW++ file has 10, some 9):

- Krippendorff's alpha counts every unit, whatever its number of raters;
- Fleiss' kappa needs the same number of raters for every unit, so it is computed over the most
  common number and the report says how many units (and contexts) it left out, and why.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from annotate import agreement
from annotate.kinds.relevance.tallies import Tally

UNIT = "a (context, candidate sentence) pair; each annotator's value: selected or not"


def relevance_agreements(tallies: list[Tally]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(Fleiss' kappa, Krippendorff's alpha) over the units of these tallies."""
    contexts = Counter(t.annotators for t in tallies)
    units: Counter[int] = Counter()
    for t in tallies:
        units[t.annotators] += len(t.selected)
    raters = contexts.most_common(1)[0][0] if contexts else 0
    table = [[t.selected[c], raters - t.selected[c]] for t in tallies if t.annotators == raters for c in range(len(t.selected))]
    left_units = sum(n for r, n in units.items() if r != raters)
    left_contexts = sum(n for r, n in contexts.items() if r != raters)
    reason = None
    if left_units:
        others = ", ".join(f"{units[r]} with {r} raters ({contexts[r]} context{'s' * (contexts[r] != 1)})"
                           for r in sorted(units) if r != raters)
        reason = (f"Fleiss' kappa needs the same number of raters for every unit: counted the {len(table)} units with "
                  f"{raters} raters, left out {others}; Krippendorff's alpha counts them all")
    kappa = {
        "measure": "fleiss_kappa",
        "value": agreement.fleiss_kappa(table) if raters >= 2 else None,
        "unit": UNIT,
        "units": len(table),
        "raters_per_unit": raters,
        "contexts": contexts.get(raters, 0),
        "units_left_out": left_units,
        "contexts_left_out": left_contexts,
        "left_out_because": reason,
    }
    counts = [[t.selected[c], t.annotators - t.selected[c]] for t in tallies for c in range(len(t.selected))]
    pairable = sum(n for r, n in units.items() if r >= 2)
    alpha = {
        "measure": "krippendorff_alpha",
        "value": agreement.krippendorff_alpha_counts(counts),
        "unit": UNIT,
        "units": pairable,
        "raters_per_unit": {str(r): units[r] for r in sorted(units)},  # raters -> units rated by that many
        "contexts": sum(n for r, n in contexts.items() if r >= 2),
        "units_left_out": sum(units.values()) - pairable,
        "contexts_left_out": sum(n for r, n in contexts.items() if r < 2),
        "left_out_because": "a unit with one rater has no pair to agree with" if pairable < sum(units.values()) else None,
    }
    return kappa, alpha
