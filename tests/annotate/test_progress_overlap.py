"""Progress counts at most `overlap` answers per item: lowering a job's overlap after annotation
started (2 → 1 in the admin) finishes no item that has no answer, and a job with no items yet is at
0%, its annotators told there is nothing yet rather than that they are done."""

from __future__ import annotations

from annotate.models import Job, JobEntry
from annotate.selectors.progress import job_progress
from annotate.services.jobs import ItemSpec, items_add, job_create
from tests.annotate.conftest import dialog_payload, make_job


def test_answers_beyond_a_lowered_overlap_do_not_count_as_progress(api, people) -> None:
    job: Job = make_job("dialog_acts", slug="acts-lowered", items=2, overlap=2)
    first = api["alice"].next(job).json()["item"]["id"]
    assert api["alice"].answer(first, {"acts": [["request_topic"], [], []]}).status_code == 201
    # bob is served the item closest to its overlap: the same one.
    assert api["bob"].next(job).json()["item"]["id"] == first
    assert api["bob"].answer(first, {"acts": [["request_topic"], [], []]}).status_code == 201
    Job.objects.filter(pk=job.pk).update(overlap=1)
    job.refresh_from_db()

    progress = job_progress(job=job)
    assert (progress["votes"], progress["votes_needed"], progress["percent"]) == (1, 2, 50.0)
    assert progress["complete"] == 1
    assert progress["answers_given"] == 2


def test_the_jobs_page_shows_the_capped_count(api, people, client, admin_user) -> None:
    job: Job = make_job("dialog_acts", slug="acts-lowered-page", items=2, overlap=2)
    for name in ("alice", "bob"):
        item = api[name].next(job).json()["item"]["id"]
        api[name].answer(item, {"acts": [[], [], []]})
    Job.objects.filter(pk=job.pk).update(overlap=1)
    client.force_login(admin_user)
    page = client.get("/annotate/jobs/").content.decode()
    assert "1 / 2 (50.0%)" in page and "2 / 2" not in page


def test_a_job_with_no_items_is_at_zero_and_says_no_items_yet(api, people) -> None:
    job = job_create(slug="pairwise-empty", name="empty", kind="dialog_acts")
    progress = job_progress(job=job)
    assert (progress["items"], progress["percent"]) == (0, 0.0)

    served = api["alice"].next(job).json()
    assert served["status"] == "empty" and served["item"] is None and served["finish_url"] is None
    assert not JobEntry.objects.get(job=job, worker=people.alice).outcome  # not done: nothing to pay yet
    # Once items arrive the same annotator is served one.
    items_add(job=job, specs=[ItemSpec(key="k0", payload=dialog_payload(0))])
    assert api["alice"].next(job).json()["status"] == "assigned"
