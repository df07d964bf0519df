"""A report labels nothing: it does not count toward the item's overlap, so one real labeler and
one report leave the item open for another labeler."""

from __future__ import annotations

from annotate.models import Item, Job
from annotate.selectors.progress import job_progress
from tests.annotate.conftest import make_job


def test_a_report_does_not_count_toward_the_overlap(api, people) -> None:
    job: Job = make_job("dialog_acts", slug="acts-overlap", items=1, overlap=2)
    item_id = api["alice"].next(job).json()["item"]["id"]
    assert api["alice"].answer(item_id, {"acts": [["request_topic"], ["inform_response"], []]}).status_code == 201
    assert api["bob"].next(job).json()["item"]["id"] == item_id
    assert api["bob"].answer(item_id, {"report_reason": "Not English."}).status_code == 201

    item = Item.objects.get(pk=item_id)
    assert item.answers_count == 1  # alice's labels only
    assert job_progress(job=job)["complete"] == 0
    # The item is still served, to someone who has not seen it, until it has two real answers.
    served = api["charlie"].next(job).json()
    assert served["item"]["id"] == item_id
    assert api["charlie"].answer(item_id, {"acts": [["request_topic"], [], []]}).status_code == 201
    assert Item.objects.get(pk=item_id).answers_count == 2
    assert job_progress(job=job)["complete"] == 1
    # The reporter is not served it again.
    assert api["bob"].next(job).json()["item"] is None
