"""Agreement the data cannot define is undefined, never a number: α (like κ) is 0/0 when every
pairable rating has the same value, on every report path (relevance and its partial figures, dialog
acts, pairwise), all computed by the one implementation in annotate.agreement."""

from __future__ import annotations

import pytest

from annotate.agreement import krippendorff_alpha, krippendorff_alpha_counts
from annotate.models import Job
from annotate.selectors.report import annotation_report
from tests.annotate.conftest import make_job


def test_alpha_is_undefined_when_every_pairable_value_is_the_same() -> None:
    assert krippendorff_alpha([("a", "u1", "x"), ("b", "u1", "x")]) is None
    assert krippendorff_alpha([("a", u, "no") for u in "123"] + [("b", u, "no") for u in "123"]) is None
    # A lone rating of another value pairs with nothing, so it defines nothing either.
    assert krippendorff_alpha([("a", "u1", "x"), ("b", "u1", "x"), ("a", "u2", "y")]) is None


def test_alpha_from_coders_is_the_alpha_of_their_counts() -> None:
    triples = [("a", 1, "x"), ("b", 1, "x"), ("a", 2, "y"), ("b", 2, "x"), ("c", 2, "y"), ("a", 3, "y"), ("b", 3, "y")]
    # Per unit, counts of (x, y): the same figure through the counts' coincidence matrix.
    assert krippendorff_alpha(triples) == pytest.approx(krippendorff_alpha_counts([[2, 0], [1, 2], [0, 2]]), abs=1e-12)
    assert krippendorff_alpha([("a", 1, "x"), ("b", 1, "x"), ("a", 2, "y"), ("b", 2, "y")]) == pytest.approx(1.0)


def test_dialog_act_alpha_is_undefined_when_two_annotators_give_no_act_anywhere(api, people) -> None:
    job: Job = make_job("dialog_acts", slug="acts-undefined", items=1, overlap=2)
    for name in ("alice", "bob"):
        item_id = api[name].next(job).json()["item"]["id"]
        assert api[name].answer(item_id, {"acts": [[], [], []]}).status_code == 201
    agreement = annotation_report(job=job)["agreement"]
    assert agreement["value"] is None
    assert agreement["units"] > 0  # the units are there; the figure is what the data cannot define


def test_relevance_partial_alpha_is_undefined_when_the_votes_so_far_all_say_not_selected(api, people) -> None:
    job: Job = make_job("relevance", slug="relevance-undefined", items=1, overlap=3)
    for name in ("alice", "bob"):
        item_id = api[name].next(job).json()["item"]["id"]
        assert api[name].answer(item_id, {"selected": []}).status_code == 201
    report = annotation_report(job=job)
    assert report["partial"]["agreement"]["value"] is None
    assert report["partial"]["agreement"]["units"] == 5  # five candidate sentences, two votes each


def test_the_report_page_says_undefined_with_the_units(api, people, client, admin_user) -> None:
    job: Job = make_job("dialog_acts", slug="acts-undefined-page", items=1, overlap=2)
    for name in ("alice", "bob"):
        item_id = api[name].next(job).json()["item"]["id"]
        api[name].answer(item_id, {"acts": [[], [], []]})
    client.force_login(admin_user)
    from django.urls import reverse

    page = client.get(reverse("annotate:report", args=[job.slug])).content.decode()
    assert 'data-testid="agreement">undefined<' in page
    assert "Krippendorff&#x27;s α over 48 units" in page or "Krippendorff's α over 48 units" in page
