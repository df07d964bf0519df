"""Agreement measures against textbook examples worked by hand."""

from __future__ import annotations

import pytest

from annotate.agreement import fleiss_kappa, krippendorff_alpha, majority_agreement

# Fleiss (1971) as worked on Wikipedia's "Fleiss' kappa" page: 10 subjects, 14 raters, 5 categories.
# P-bar = 0.378, P-bar_e = 0.213, kappa = (0.378 - 0.213) / (1 - 0.213) = 0.210.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), the example with missing values:
# 4 coders, 12 units, nominal alpha = 0.743 (None = no value).
KRIPPENDORFF_DATA = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def test_it_computes_fleiss_kappa_of_the_wikipedia_example() -> None:
    assert fleiss_kappa(FLEISS_TABLE) == pytest.approx(0.2099, abs=5e-4)


def test_it_gives_binary_fleiss_kappa_for_hand_counted_votes() -> None:
    # 4 subjects x 2 raters, selected/not: P-bar = (1 + 1 + 0 + 1) / 4 = 0.75; p = (3/8, 5/8);
    # P_e = 9/64 + 25/64 = 34/64; kappa = (0.75 - 0.53125) / (1 - 0.53125) = 0.4667.
    assert fleiss_kappa([[2, 0], [0, 2], [1, 1], [0, 2]]) == pytest.approx(0.46667, abs=1e-4)


def test_it_refuses_subjects_with_different_numbers_of_raters() -> None:
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa([[2, 0], [1, 2]])


def test_it_says_kappa_is_undefined_when_every_rating_is_the_same() -> None:
    assert fleiss_kappa([[0, 3], [0, 3]]) is None


def test_it_computes_krippendorffs_alpha_with_missing_values() -> None:
    triples = [
        (coder, unit, value)
        for coder, values in KRIPPENDORFF_DATA.items()
        for unit, value in enumerate(values)
        if value is not None
    ]
    assert krippendorff_alpha(triples) == pytest.approx(0.743, abs=5e-4)


def test_it_says_alpha_is_undefined_without_a_pairable_unit() -> None:
    assert krippendorff_alpha([("a", "u1", "yes"), ("b", "u2", "no")]) is None


def test_it_measures_agreement_with_the_other_annotators_majority() -> None:
    decisions = {
        "u1": {"a": "yes", "b": "yes", "c": "no"},
        "u2": {"a": "no", "b": "no", "c": "no"},
        "u3": {"a": "yes", "b": "no"},  # each has one other annotator: a tie never, a plain majority of one
    }
    result = majority_agreement(decisions)
    # a: u1 others (yes,no) tie -> skipped; u2 agree; u3 other says no -> disagree.
    assert result["a"] == (1, 2)
    # c: u1 others (yes,yes) -> disagree; u2 agree.
    assert result["c"] == (1, 2)


def test_alpha_from_counts_is_alpha_from_coders_whatever_the_raters_per_unit() -> None:
    from annotate.agreement import krippendorff_alpha_counts

    # Krippendorff's example again, as counts of values 1..5 per unit (units with 1 value included).
    counts = []
    for unit in range(12):
        values = [v[unit] for v in KRIPPENDORFF_DATA.values() if v[unit] is not None]
        counts.append([values.count(value) for value in range(1, 6)])
    assert krippendorff_alpha_counts(counts) == pytest.approx(0.743, abs=5e-4)
    # Binary units rated by 10 and by 9 raters, as in a WOW++ file: equal to NLTK on the same votes.
    units = [[7, 3], [0, 10], [1, 9], [6, 3], [0, 9], [9, 0], [2, 8], [5, 4]]
    triples = [(f"r{r}", u, "yes" if r < yes else "no") for u, (yes, no) in enumerate(units) for r in range(yes + no)]
    assert krippendorff_alpha_counts(units) == pytest.approx(krippendorff_alpha(triples), abs=1e-12)
    assert krippendorff_alpha_counts([[3, 0], [2, 0]]) is None  # one value only: undefined
    assert krippendorff_alpha_counts([[1, 0]]) is None  # nothing pairable
