"""The annotation API: join, list, next, answer; and every refused answer stores nothing."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Item, Job, JobEntry
from collect.lifecycle.links import JOB_LINKS, signature_for
from collect.models import Worker
from tests.annotate.conftest import Api, People

pytestmark = pytest.mark.django_db


def reserve(api: Api, job: Job) -> dict:
    response = api.next(job)
    assert response.status_code == 200, response.content
    return response.json()


def assert_nothing_stored(item_id: int) -> None:
    assert not Assignment.objects.filter(item_id=item_id, status=AssignmentStatus.SUBMITTED).exists()
    assert Item.objects.get(pk=item_id).answers_count == 0


def test_it_gives_a_token_for_a_signed_link(client: Client, relevance_job: Job, settings) -> None:
    settings.UNSIGNED_LINKS = False
    sig = signature_for(kind=JOB_LINKS, slug=relevance_job.slug, worker="dora")
    response = client.post(f"/api/annotate/jobs/{relevance_job.slug}/join/", {"worker": "dora", "sig": sig}, content_type="application/json")
    assert response.status_code == 200 and response.json()["token"]
    dora = Worker.objects.get(external_id="dora")
    assert JobEntry.objects.filter(job=relevance_job, worker=dora).exists()
    bad = client.post(f"/api/annotate/jobs/{relevance_job.slug}/join/", {"worker": "<b>"}, content_type="application/json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_worker_id"
    missing = client.post("/api/annotate/jobs/nope/join/", {"worker": "dora"}, content_type="application/json")
    assert missing.status_code == 404 and missing.json()["code"] == "no_job"


def test_it_lists_the_active_jobs_they_entered_to_annotators_and_all_jobs_to_staff(client: Client, api, relevance_job: Job, acts_job: Job) -> None:
    api["alice"].enter(relevance_job)
    api["alice"].enter(acts_job)
    Job.objects.filter(pk=acts_job.pk).update(is_active=False)
    assert api["bob"].client.get("/api/annotate/jobs/", **api["bob"].auth).json() == []  # bob entered none
    listed = api["alice"].client.get("/api/annotate/jobs/", **api["alice"].auth).json()
    assert [job["slug"] for job in listed] == [relevance_job.slug]
    assert client.get("/api/annotate/jobs/").status_code == 401
    client.force_login(User.objects.create(username="rita", is_staff=True))
    assert {job["slug"] for job in client.get("/api/annotate/jobs/").json()} == {relevance_job.slug, acts_job.slug}


def test_it_serves_an_item_without_its_role_or_anyones_votes(api, relevance_job: Job) -> None:
    data = reserve(api["alice"], relevance_job)
    item = data["item"]
    assert data["status"] == "assigned" and set(item) == {"id", "kind", "topic", "turns", "articles"}
    assert item["turns"][-1] == {"speaker": "user", "text": "Where does it come from? (0)"}
    assert [a["title"] for a in item["articles"]] == ["Blues", "Guitar"]
    assert [s["id"] for a in item["articles"] for s in a["sentences"]] == [0, 1, 2, 3, 4]
    assert data["progress"]["answered"] == 0 and data["progress"]["job"] == {"items": 3, "complete": 0}


def test_it_stores_an_answer_with_its_time(api, relevance_job: Job, people: People) -> None:
    item_id = reserve(api["alice"], relevance_job)["item"]["id"]
    response = api["alice"].answer(item_id, {"selected": [3, 1], "time_spent_ms": 4200})
    assert response.status_code == 201 and response.json() == {"status": "submitted", "item": item_id, "time_spent_ms": 4200}
    stored = Assignment.objects.get(item_id=item_id, worker=people.alice)
    assert (stored.status, stored.answer, stored.time_spent_ms) == (AssignmentStatus.SUBMITTED, {"selected": [1, 3]}, 4200)
    assert Item.objects.get(pk=item_id).answers_count == 1
    none = api["alice"].answer(reserve(api["alice"], relevance_job)["item"]["id"], {"selected": []})
    assert none.status_code == 201  # "none of these" is an answer


def test_it_refuses_an_answer_to_an_item_not_assigned_to_you(api, relevance_job: Job) -> None:
    item_id = reserve(api["alice"], relevance_job)["item"]["id"]
    response = api["charlie"].answer(item_id, {"selected": [0]})
    assert response.status_code == 403 and response.json()["code"] == "not_assigned"
    assert "not assigned to you" in response.json()["detail"]
    assert_nothing_stored(item_id)


def test_it_refuses_a_second_answer_to_the_same_item(api, relevance_job: Job, people: People) -> None:
    item_id = reserve(api["alice"], relevance_job)["item"]["id"]
    assert api["alice"].answer(item_id, {"selected": [0]}).status_code == 201
    again = api["alice"].answer(item_id, {"selected": [1]})
    assert again.status_code == 409 and again.json()["code"] == "already_answered"
    assert Assignment.objects.get(item_id=item_id, worker=people.alice).answer == {"selected": [0]}
    assert Item.objects.get(pk=item_id).answers_count == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"selected": [0, 5]}, 400, "unknown_sentence"),
        ({"selected": [-1]}, 400, "unknown_sentence"),
        ({"selected": [1, 1]}, 400, "duplicate_sentence"),
        ({"selected": ["x"]}, 400, "invalid"),
        ({"selectd": [1]}, 400, "invalid"),
        ({}, 400, "bad_answer"),
        ({"acts": [["inform_response"]]}, 400, "bad_answer"),
        ({"selected": [1], "time_spent_ms": -5}, 400, "invalid"),
    ],
)
def test_it_refuses_a_bad_relevance_answer(api, relevance_job: Job, body: dict, status: int, code: str) -> None:
    item_id = reserve(api["alice"], relevance_job)["item"]["id"]
    response = api["alice"].answer(item_id, body)
    assert (response.status_code, response.json()["code"]) == (status, code), response.content
    assert_nothing_stored(item_id)


@pytest.mark.parametrize(
    ("acts", "code", "text"),
    [
        ([["request_topic"], ["inform_everything"], []], "unknown_act", "unknown dialog act 'inform_everything'"),
        ([["request_topic"], []], "bad_answer", "one list per message: 3, not 2"),
        ([["request_topic", "request_topic"], [], []], "bad_answer", "each dialog act may be given once"),
    ],
)
def test_it_refuses_a_bad_dialog_act_answer(api, acts_job: Job, acts: list, code: str, text: str) -> None:
    item_id = reserve(api["alice"], acts_job)["item"]["id"]
    response = api["alice"].answer(item_id, {"acts": acts})
    assert (response.status_code, response.json()["code"]) == (400, code)
    assert text in response.json()["detail"]
    assert_nothing_stored(item_id)


def test_it_stores_dialog_acts_and_reports(api, acts_job: Job, people: People) -> None:
    item_id = reserve(api["alice"], acts_job)["item"]["id"]
    acts = [["request_topic"], ["inform_response", "feedback_positive"], []]
    assert api["alice"].answer(item_id, {"acts": acts}).status_code == 201
    assert Assignment.objects.get(item_id=item_id, worker=people.alice).answer == {"acts": [
        ["request_topic"], ["inform_response", "feedback_positive"], []
    ]}
    reported = reserve(api["bob"], acts_job)["item"]["id"]
    assert api["bob"].answer(reported, {"report_reason": "  Not English.  "}).status_code == 201
    assert Assignment.objects.get(item_id=reported, worker=people.bob).report_reason == "Not English."


def test_it_refuses_a_late_answer_when_the_item_went_to_others(db, people: People) -> None:
    from annotate.services import AnnotationError
    from annotate.services.answers import answer_submit
    from annotate.services.assignment import assignment_next
    from tests.annotate.conftest import make_job

    job = make_job("relevance", items=1, overlap=1, reservation_seconds=60)
    now = timezone.now()
    item = assignment_next(job=job, worker=people.alice, now=now).assignment.item
    assignment_next(job=job, worker=people.bob, now=now + timedelta(seconds=90))
    with pytest.raises(AnnotationError) as refused:
        answer_submit(item_id=item.pk, worker=people.alice, selected=[0], now=now + timedelta(seconds=95))
    assert refused.value.code == "reservation_expired" and refused.value.status == 409
    assert_nothing_stored(item.pk)


def test_it_accepts_the_browser_session_from_the_join_link_with_csrf(relevance_job: Job) -> None:
    browser = Client(enforce_csrf_checks=True)
    assert browser.get(f"/annotate/join/{relevance_job.slug}/?worker=erin").url == f"/annotate/{relevance_job.slug}/"
    page = browser.get(f"/annotate/{relevance_job.slug}/")
    assert page.status_code == 200
    assert browser.post(f"/api/annotate/jobs/{relevance_job.slug}/next/").status_code == 403  # no CSRF token
    token = page.context["csrf_token"]
    response = browser.post(f"/api/annotate/jobs/{relevance_job.slug}/next/", HTTP_X_CSRFTOKEN=str(token))
    assert response.status_code == 200 and response.json()["status"] == "assigned"


def test_it_refuses_the_screen_without_the_join_link(client: Client, relevance_job: Job) -> None:
    assert client.get(f"/annotate/{relevance_job.slug}/").status_code == 403
    assert client.get(f"/annotate/join/{relevance_job.slug}/").status_code == 400
    assert client.get("/annotate/join/nope/?worker=x").status_code == 404


def test_it_publishes_an_openapi_schema_to_staff(admin_client: Client) -> None:
    schema = json.loads(admin_client.get("/api/annotate/schema/?format=json").content)
    assert set(schema["paths"]) == {
        "/api/annotate/jobs/",
        "/api/annotate/jobs/{slug}/join/",
        "/api/annotate/jobs/{slug}/next/",
        "/api/annotate/items/{item_id}/answers/",
    }
    answer = schema["components"]["schemas"]["Answer"]["properties"]
    assert {"selected", "acts", "report_reason", "time_spent_ms"} <= set(answer)
