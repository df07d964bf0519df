"""An annotation job's entry: the chat campaigns' rules (signed links per job, platforms, the first
browser, blocked workers, caps) and its end (outcome, code, the platform's completion). A refused
entry writes nothing."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from annotate.models import Assignment, Item, ItemRole, Job, JobEntry
from annotate.services.jobs import ItemSpec, items_add
from collect.lifecycle.links import CAMPAIGN_LINKS, JOB_LINKS, signed_link, signature_for
from collect.models import Platform, Worker
from tests.annotate.conftest import make_job, relevance_payload
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db
PROLIFIC = "?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&STUDY_ID=study-1&SESSION_ID=sess-1"
MTURK = {"assignmentId": "3ASSIGN", "hitId": "3HIT", "workerId": "A1WORKER", "turkSubmitTo": "https://workersandbox.mturk.com"}


@pytest.fixture
def signed_only(settings) -> None:
    settings.UNSIGNED_LINKS = False


def link(job: Job, worker: str) -> str:
    return signed_link(base="", kind=JOB_LINKS, slug=job.slug, worker=worker)


def nothing_written() -> bool:
    return not Worker.objects.exists() and not JobEntry.objects.exists() and not Assignment.objects.exists()


def next_item(client: Client, job: Job) -> dict:
    response = client.post(f"/api/annotate/jobs/{job.slug}/next/")
    assert response.status_code == 200, response.content
    return response.json()


def answer_everything(client: Client, job: Job) -> dict:
    """Answer items until the job has nothing left for this annotator; the last next-item answer."""
    while (data := next_item(client, job))["item"] is not None:
        body = {"selected": [0]} if job.kind == "relevance" else {"acts": [["request_topic"]] * 3}
        response = client.post(f"/api/annotate/items/{data['item']['id']}/answers/", json.dumps(body), content_type="application/json")
        assert response.status_code == 201, response.content
    return data


def test_a_signed_job_link_opens_the_job(client: Client, signed_only) -> None:
    job = make_job("relevance", items=1, overlap=1)
    response = client.get(link(job, "alice"))
    assert response.status_code == 302 and response.url == f"/annotate/{job.slug}/"
    entry = JobEntry.objects.get()
    assert (entry.job, entry.worker.external_id, entry.outcome) == (job, "alice", "")
    assert client.get(response.url).status_code == 200


@pytest.mark.parametrize(
    ("query", "status", "text"),
    [
        ("?worker=alice", 403, b"has no signature"),
        ("?worker=alice&sig=" + "0" * 32, 403, b"signature does not match"),
        ("?worker=alice&sig=abc", 403, b"signature does not match"),
        ("?worker=alice%0A&sig=" + "0" * 32, 400, b"Ids may hold only"),
        ("", 400, b"must carry worker="),
    ],
)
def test_it_refuses_unsigned_and_tampered_job_links(client: Client, signed_only, query: str, status: int, text: bytes) -> None:
    job = make_job("relevance")
    response = client.get(f"/annotate/join/{job.slug}/{query}")
    assert response.status_code == status and text in response.content
    assert nothing_written() and "worker_id" not in client.session


def test_a_campaigns_link_does_not_open_a_job_of_the_same_slug(client: Client, signed_only) -> None:
    job = make_job("relevance", slug="same-slug")
    make_campaign(slug="same-slug")
    sig = signature_for(kind=CAMPAIGN_LINKS, slug="same-slug", worker="alice")
    assert client.get(f"/annotate/join/same-slug/?worker=alice&sig={sig}").status_code == 403
    job_sig = signature_for(kind=JOB_LINKS, slug=job.slug, worker="alice")
    assert client.get(f"/join/same-slug/?worker=alice&sig={job_sig}").status_code == 403
    assert nothing_written()


def test_a_prolific_job_takes_prolifics_complete_parameters(client: Client) -> None:
    job = make_job("relevance", platform=Platform.PROLIFIC)
    response = client.get(f"/annotate/join/{job.slug}/{PROLIFIC}")
    assert response.status_code == 302
    entry = JobEntry.objects.get()
    assert (entry.worker.platform, entry.study_id, entry.session_id) == ("prolific", "study-1", "sess-1")


@pytest.mark.parametrize(
    ("platform", "query", "text"),
    [
        (Platform.PROLIFIC, "?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d", b"STUDY_ID and SESSION_ID"),
        (Platform.PROLIFIC, "?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&STUDY_ID=s", b"STUDY_ID and SESSION_ID"),
        (Platform.PROLIFIC, "?worker=alice", b"does not take in-house links"),
        (Platform.MTURK, "?worker=alice", b"does not take in-house links"),
        (Platform.INHOUSE, PROLIFIC, b"does not take Prolific links"),
        (Platform.PROLIFIC, "?assignmentId=A&hitId=H&workerId=W&turkSubmitTo=https://www.mturk.com", b"does not take MTurk links"),
    ],
)
def test_a_link_for_another_platform_or_an_incomplete_one_is_refused(client: Client, platform: str, query: str, text: bytes) -> None:
    job = make_job("relevance", platform=platform)
    response = client.get(f"/annotate/join/{job.slug}/{query}")
    assert response.status_code == 400 and text in response.content
    assert nothing_written()


def test_a_signed_in_house_link_is_refused_on_a_prolific_job(client: Client, signed_only) -> None:
    job = make_job("relevance", platform=Platform.PROLIFIC)
    response = client.get(link(job, "alice"))
    assert response.status_code == 400 and b"does not take in-house links" in response.content
    assert nothing_written()


def test_a_job_link_works_only_in_the_browser_that_opened_it_first(signed_only) -> None:
    job = make_job("relevance")
    first, second = Client(), Client()
    assert first.get(link(job, "alice")).status_code == 302
    refused = second.get(link(job, "alice"))
    assert refused.status_code == 403 and b"first opened in another browser" in refused.content
    assert "worker_id" not in second.session
    assert second.get(f"/annotate/{job.slug}/").status_code == 403
    assert second.post(f"/api/annotate/jobs/{job.slug}/next/").status_code in (401, 403)
    assert first.get(link(job, "alice")).status_code == 302  # the first browser still may
    assert JobEntry.objects.count() == 1


def test_the_same_browser_is_not_taken_over_by_a_second_link_while_an_item_is_open(signed_only) -> None:
    job = make_job("relevance")
    browser = Client()
    browser.get(link(job, "alice"))
    next_item(browser, job)  # alice holds an item
    refused = browser.get(link(job, "bob"))
    assert refused.status_code == 409 and browser.session["worker_id"] == Worker.objects.get(external_id="alice").pk
    assert not JobEntry.objects.filter(worker__external_id="bob").exists()


def test_a_blocked_worker_cannot_enter_a_job(client: Client) -> None:
    job = make_job("relevance")
    Worker.objects.create(external_id="mallory", blocked=True)
    response = client.get(f"/annotate/join/{job.slug}/?worker=mallory")
    assert response.status_code == 403 and b"cannot take part" in response.content
    assert not JobEntry.objects.exists() and "worker_id" not in client.session


def test_a_worker_blocked_after_entering_is_refused_on_every_page_and_call(client: Client) -> None:
    job = make_job("relevance")
    client.get(f"/annotate/join/{job.slug}/?worker=alice")
    item_id = next_item(client, job)["item"]["id"]
    Worker.objects.filter(external_id="alice").update(blocked=True)
    assert client.get(f"/annotate/{job.slug}/").status_code == 403
    assert client.get(f"/annotate/{job.slug}/done/").status_code == 403
    for response in (
        client.post(f"/api/annotate/jobs/{job.slug}/next/"),
        client.post(f"/api/annotate/items/{item_id}/answers/", {"selected": [0]}, content_type="application/json"),
        client.post(f"/api/annotate/jobs/{job.slug}/join/"),
        client.get("/api/annotate/jobs/"),
    ):
        assert response.status_code == 403 and response.json()["code"] == "blocked"
    assert not Assignment.objects.filter(status="submitted").exists()


def test_finishing_a_job_records_the_outcome_and_shows_the_code(client: Client) -> None:
    job = make_job("relevance", items=2, overlap=1, completion_code="GW-DONE-1")
    client.get(f"/annotate/join/{job.slug}/?worker=alice")
    assert b"GW-DONE-1" not in client.get(f"/annotate/{job.slug}/").content  # not before the end
    assert client.get(f"/annotate/{job.slug}/done/").url == f"/annotate/{job.slug}/"
    last = answer_everything(client, job)
    assert last["status"] == "done" and last["finish_url"] == f"/annotate/{job.slug}/done/"
    entry = JobEntry.objects.get()
    assert (entry.outcome, entry.completion_code) == ("completed", "GW-DONE-1") and entry.ended_at
    page = client.get(last["finish_url"])
    assert page.status_code == 200 and b"GW-DONE-1" in page.content and b"All done" in page.content
    assert client.get(f"/annotate/{job.slug}/").url == last["finish_url"]  # the work page sends them on
    assert client.get(f"/annotate/join/{job.slug}/?worker=alice").url == last["finish_url"]


def test_nothing_left_before_any_answer_earns_no_code(client: Client) -> None:
    job = make_job("relevance", items=1, overlap=1, completion_code="GW-DONE-2")
    client.get(f"/annotate/join/{job.slug}/?worker=bob")
    answer_everything(client, job)  # bob takes the only item
    other = Client()
    other.get(f"/annotate/join/{job.slug}/?worker=carol")
    data = next_item(other, job)
    assert data["status"] == "done" and data["finish_url"] is None
    assert JobEntry.objects.get(worker__external_id="carol").outcome == ""


def test_the_cap_per_annotator_ends_their_work_with_the_completed_code(client: Client) -> None:
    job = make_job("relevance", items=5, overlap=1, completion_code="GW-CAP", max_items_per_worker=2)
    client.get(f"/annotate/join/{job.slug}/?worker=alice")
    last = answer_everything(client, job)
    assert last["status"] == "done" and Assignment.objects.filter(status="submitted").count() == 2
    assert JobEntry.objects.get().outcome == "completed"


def test_the_qualification_items_screen_out_with_their_own_code(client: Client) -> None:
    job = make_job("relevance", items=2, overlap=1, outcome_codes={"screened_out": "GW-SCREENED"}, completion_code="GW-FULL")
    items_add(job=job, specs=[ItemSpec(key="q1", payload=relevance_payload(9), role=ItemRole.QUALIFICATION, gold={"selected": [2]})])
    client.get(f"/annotate/join/{job.slug}/?worker=alice")
    data = next_item(client, job)
    assert data["item"]["id"] == Item.objects.get(key="q1").pk
    client.post(f"/api/annotate/items/{data['item']['id']}/answers/", {"selected": [4]}, content_type="application/json")
    data = next_item(client, job)
    assert data["status"] == "disqualified" and data["finish_url"]
    page = client.get(data["finish_url"])
    assert b"GW-SCREENED" in page.content and b"GW-FULL" not in page.content
    assert JobEntry.objects.get().outcome == "screened_out"


def test_a_prolific_annotator_goes_back_to_prolific_with_the_code(client: Client, settings) -> None:
    settings.PROLIFIC_COMPLETE_URL = "https://app.prolific.example/submissions/complete"
    job = make_job("relevance", items=1, overlap=1, completion_code="GW-PRO", platform=Platform.PROLIFIC)
    client.get(f"/annotate/join/{job.slug}/{PROLIFIC}")
    last = answer_everything(client, job)
    response = client.get(last["finish_url"])
    assert response.status_code == 302 and response.url == "https://app.prolific.example/submissions/complete?cc=GW-PRO"


class Forms(HTMLParser):
    """The finish page's forms: action and hidden fields."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form":
            self.forms.append({"action": values.get("action"), "method": values.get("method"), "fields": {}})
        elif tag == "input" and self.forms and values.get("type") == "hidden":
            self.forms[-1]["fields"][values["name"]] = values.get("value")


def test_an_mturk_annotator_posts_the_hit_back_from_a_page_mturk_may_frame(client: Client, settings) -> None:
    settings.MTURK_FRAME_ANCESTORS = ["https://worker.mturk.com", "https://workersandbox.mturk.com"]
    job = make_job("relevance", items=1, overlap=1, completion_code="GW-TURK", platform=Platform.MTURK)
    preview = client.get(f"/annotate/join/{job.slug}/", {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "3HIT"})
    assert preview.status_code == 200 and b"previewing this HIT" in preview.content and b"label" in preview.content
    assert not Worker.objects.exists()
    assert "frame-ancestors https://worker.mturk.com" in preview["Content-Security-Policy"]
    assert client.get(f"/annotate/join/{job.slug}/", MTURK).url == f"/annotate/{job.slug}/"
    work = client.get(f"/annotate/{job.slug}/")
    assert "frame-ancestors https://worker.mturk.com https://workersandbox.mturk.com" in work["Content-Security-Policy"]
    last = answer_everything(client, job)
    page = client.get(last["finish_url"])
    parser = Forms()
    parser.feed(page.content.decode())
    assert parser.forms == [
        {
            "action": "https://workersandbox.mturk.com/mturk/externalSubmit",
            "method": "post",
            "fields": {"assignmentId": "3ASSIGN", "outcome": "completed", "completion_code": "GW-TURK"},
        }
    ]
    policy = page["Content-Security-Policy"]
    assert "frame-ancestors https://worker.mturk.com" in policy and "form-action 'self' https://www.mturk.com https://workersandbox.mturk.com" in policy
    assert "X-Frame-Options" not in page and b"js/mturk-submit.js" in page.content


def test_pages_of_an_in_house_job_stay_unframeable(client: Client) -> None:
    job = make_job("relevance")
    client.get(f"/annotate/join/{job.slug}/?worker=alice")
    work = client.get(f"/annotate/{job.slug}/")
    assert "frame-ancestors 'none'" in work["Content-Security-Policy"] and work["X-Frame-Options"] == "DENY"


def test_the_api_gives_a_token_to_the_sessions_own_worker_only(signed_only) -> None:
    job = make_job("relevance")
    browser = Client()
    browser.get(link(job, "alice"))
    token = browser.post(f"/api/annotate/jobs/{job.slug}/join/", {"worker": "bob"}, content_type="application/json").json()["token"]
    from annotate.identity import worker_from_token

    assert worker_from_token(token).external_id == "alice"  # the body's id is not looked at
    stranger = Client().post(f"/api/annotate/jobs/{job.slug}/join/", {"worker": "alice"}, content_type="application/json")
    assert stranger.status_code == 403 and "token" not in stranger.json()
    replay = Client().post(f"/api/annotate/jobs/{job.slug}/join/", {"worker": "alice", "sig": signature_for(kind=JOB_LINKS, slug=job.slug, worker="alice")}, content_type="application/json")
    assert replay.status_code == 403 and replay.json()["code"] == "link_already_in_use"  # bound to alice's browser


def test_a_prolific_id_gets_no_token_from_the_api(client: Client) -> None:
    job = make_job("relevance", platform=Platform.PROLIFIC)
    response = client.post(f"/api/annotate/jobs/{job.slug}/join/", {"PROLIFIC_PID": "5f0c9a1b2c3d4e5f6a7b8c9d"}, content_type="application/json")
    assert response.status_code == 403 and response.json()["code"] == "use_link"
    assert nothing_written()


def test_a_session_from_another_job_or_a_chat_cannot_work_on_this_job(client: Client) -> None:
    job, other = make_job("relevance", slug="this-job"), make_job("relevance", slug="other-job")
    client.get(f"/annotate/join/{other.slug}/?worker=alice")
    assert client.get(f"/annotate/{job.slug}/").status_code == 403
    response = client.post(f"/api/annotate/jobs/{job.slug}/next/")
    assert response.status_code == 403 and response.json()["code"] == "not_entered"
    assert not Assignment.objects.filter(job=job).exists()


def test_outcomes_csv_lists_each_annotators_outcome_for_staff_only(client: Client, admin_client: Client) -> None:
    job = make_job("relevance", items=1, overlap=1, completion_code="GW-PAY", platform=Platform.PROLIFIC)
    client.get(f"/annotate/join/{job.slug}/{PROLIFIC}")
    answer_everything(client, job)
    assert client.get(f"/annotate/jobs/{job.slug}/outcomes.csv").status_code == 302  # to the staff login
    lines = admin_client.get(f"/annotate/jobs/{job.slug}/outcomes.csv").content.decode().splitlines()
    assert lines[0].startswith("platform,worker_id,pseudonym,study_id,session_id,outcome,completion_code,answered")
    assert lines[1].startswith("prolific,5f0c9a1b2c3d4e5f6a7b8c9d,") and ",study-1,sess-1,completed,GW-PAY,1," in lines[1]


def test_the_job_command_sets_the_entry_rules(capsys) -> None:
    make_campaign(slug="src")
    call_command(
        "create_annotation_job", "paid-job", "--kind", "relevance", "--campaign", "src", "--platform", "prolific",
        "--screened-out-code", "GW-SO", "--max-items-per-worker", "20", "--completion-url", "https://example.org/done",
    )
    job = Job.objects.get(slug="paid-job")
    assert (job.platform, job.outcome_codes, job.max_items_per_worker, job.completion_url) == ("prolific", {"screened_out": "GW-SO"}, 20, "https://example.org/done")
    assert "Prolific" in capsys.readouterr().out
    with pytest.raises(CommandError, match="not a URL"):
        call_command("create_annotation_job", "bad-job", "--kind", "relevance", "--campaign", "src", "--completion-url", "nope")
    assert not Job.objects.filter(slug="bad-job").exists()


def test_signed_links_for_a_job_open_that_job(capsys, signed_only) -> None:
    job = make_job("relevance")
    call_command("signed_links", job.slug, "carol", "--job", "--base", "http://testserver")
    url = capsys.readouterr().out.strip().split("\t")[1]
    assert url.startswith(f"http://testserver/annotate/join/{job.slug}/?worker=carol&sig=")
    assert Client().get(url).status_code == 302
    Job.objects.filter(pk=job.pk).update(platform=Platform.MTURK)
    with pytest.raises(CommandError, match="Mechanical Turk"):
        call_command("signed_links", job.slug, "carol", "--job")


def test_leaving_returns_the_task_frees_the_held_item_and_earns_no_code(client: Client) -> None:
    job = make_job("relevance", items=1, overlap=1, completion_code="GW-NOT-FOR-LEAVERS")
    client.get(f"/annotate/join/{job.slug}/?worker=alice")
    item_id = next_item(client, job)["item"]["id"]
    assert client.get(f"/annotate/{job.slug}/leave/").status_code == 405
    response = client.post(f"/annotate/{job.slug}/leave/")
    assert response.status_code == 302 and response.url == f"/annotate/{job.slug}/done/"
    entry = JobEntry.objects.get()
    assert (entry.outcome, entry.completion_code) == ("returned", "")
    assert Assignment.objects.get(item_id=item_id).status == "released"
    page = client.get(response.url)
    assert b"Returned" in page.content and b"GW-NOT-FOR-LEAVERS" not in page.content
    other = Client()
    other.get(f"/annotate/join/{job.slug}/?worker=bob")
    assert next_item(other, job)["item"]["id"] == item_id  # free for someone else at once
    assert client.post(f"/annotate/{job.slug}/leave/").status_code == 302 and JobEntry.objects.get(pk=entry.pk).outcome == "returned"


def test_an_ended_entry_gets_no_more_items_even_when_the_job_grows(client: Client) -> None:
    job = make_job("relevance", items=1, overlap=1, completion_code="GW-ONCE")
    client.get(f"/annotate/join/{job.slug}/?worker=alice")
    answer_everything(client, job)
    items_add(job=job, specs=[ItemSpec(key="later", payload=relevance_payload(7))])
    data = next_item(client, job)
    assert (data["status"], data["item"], data["finish_url"]) == ("done", None, f"/annotate/{job.slug}/done/")
    assert not Assignment.objects.filter(item__key="later").exists()
    returned = Client()
    returned.get(f"/annotate/join/{job.slug}/?worker=bob")
    returned.post(f"/annotate/{job.slug}/leave/")
    assert next_item(returned, job)["item"] is None and not Assignment.objects.filter(item__key="later").exists()


def test_a_replayed_mturk_assignment_id_opens_no_job_and_writes_nothing() -> None:
    job = make_job("relevance", items=1, overlap=1, platform=Platform.MTURK)
    assert Client().get(f"/annotate/join/{job.slug}/", MTURK).status_code == 302
    workers, entries = Worker.objects.count(), JobEntry.objects.count()
    replay = Client().get(f"/annotate/join/{job.slug}/", {**MTURK, "workerId": "A2ATTACKER"})
    assert replay.status_code == 403 and b"belongs to another worker" in replay.content
    assert (Worker.objects.count(), JobEntry.objects.count()) == (workers, entries)
