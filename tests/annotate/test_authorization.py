"""Every route of the annotation side, asked by everyone who is not the annotator it belongs to:
anonymous, another annotator, the annotator once blocked, a second browser with her link, staff.
Nobody gets her progress, her item, her code or a token for her, and nothing of hers changes.

The scene: alice entered the job by her signed link in her own browser, answered one item and
holds another; bob entered by his own link."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client

from annotate.identity import worker_from_token
from annotate.models import Assignment, Job, JobEntry
from collect.lifecycle.links import JOB_LINKS, signed_link
from collect.models import Assignment as ChatAssignment, Worker
from tests.annotate.conftest import make_job
from tests.factories import make_campaign, make_room

pytestmark = pytest.mark.django_db
JOB_CODE = "GW-JOB-SECRET"


@dataclass
class Scene:
    job: Job
    alice: Worker
    held_item: int
    held_text: str

    def markers(self) -> list[str]:
        """What would show alice's work: the job's code (nobody has finished), her pseudonym,
        the item she holds."""
        return [JOB_CODE, self.alice.pseudonym, self.held_text]

    def alice_state(self) -> list[tuple]:
        rows = Assignment.objects.filter(worker=self.alice).order_by("pk").values_list("pk", "item_id", "status", "answer", "expires_at")
        entry = JobEntry.objects.filter(worker=self.alice).values_list("pk", "outcome", "completion_code", "session_id")
        worker = Worker.objects.filter(pk=self.alice.pk).values_list("browser", "blocked")
        return [*rows, *entry, *worker]


def link(job: Job, worker: str) -> str:
    return signed_link(base="", kind=JOB_LINKS, slug=job.slug, worker=worker)


@pytest.fixture
def scene(settings) -> Scene:
    settings.UNSIGNED_LINKS = False
    job = make_job("relevance", items=4, overlap=1, completion_code=JOB_CODE, slug="guarded")
    browser = Client()
    assert browser.get(link(job, "alice")).status_code == 302
    first = browser.post(f"/api/annotate/jobs/{job.slug}/next/").json()["item"]
    browser.post(f"/api/annotate/items/{first['id']}/answers/", {"selected": [1]}, content_type="application/json")
    held = browser.post(f"/api/annotate/jobs/{job.slug}/next/").json()["item"]
    alice = Worker.objects.get(external_id="alice")
    return Scene(job, alice, held["id"], held["turns"][-1]["text"])


def anonymous(scene: Scene) -> Client:
    return Client()


def another_annotator(scene: Scene) -> Client:
    bob = Client()
    assert bob.get(link(scene.job, "bob")).status_code == 302
    return bob


def blocked_annotator(scene: Scene) -> Client:
    # Alice's own browser, signed in before she was blocked.
    browser = Client()
    Worker.objects.filter(pk=scene.alice.pk).update(browser="")
    assert browser.get(link(scene.job, "alice")).status_code == 302
    Worker.objects.filter(pk=scene.alice.pk).update(blocked=True, blocked_reason="copied answers")
    return browser


def second_browser(scene: Scene) -> Client:
    browser = Client()
    assert browser.get(link(scene.job, "alice")).status_code == 403  # her link, in another browser
    return browser


def staff(scene: Scene) -> Client:
    client = Client()
    client.force_login(User.objects.create(username="rita", is_staff=True))
    return client


PERSONAS: dict[str, Callable[[Scene], Client]] = {
    "anonymous": anonymous,
    "another_annotator": another_annotator,
    "blocked": blocked_annotator,
    "second_browser": second_browser,
    "staff": staff,
}


def post_json(client: Client, url: str, body: dict[str, Any]) -> HttpResponse:
    return client.post(url, json.dumps(body), content_type="application/json")


ROUTES: dict[str, Callable[[Client, Scene], HttpResponse]] = {
    "join_with_her_bare_id": lambda c, s: c.get(f"/annotate/join/{s.job.slug}/?worker=alice"),
    "join_as_prolific_with_her_id": lambda c, s: c.get(f"/annotate/join/{s.job.slug}/?PROLIFIC_PID=alice&STUDY_ID=x&SESSION_ID=y"),
    "work": lambda c, s: c.get(f"/annotate/{s.job.slug}/"),
    "finish": lambda c, s: c.get(f"/annotate/{s.job.slug}/done/"),
    "leave": lambda c, s: c.post(f"/annotate/{s.job.slug}/leave/"),
    "api_join_with_her_bare_id": lambda c, s: post_json(c, f"/api/annotate/jobs/{s.job.slug}/join/", {"worker": "alice"}),
    "api_join_by_session": lambda c, s: post_json(c, f"/api/annotate/jobs/{s.job.slug}/join/", {}),
    "api_next": lambda c, s: c.post(f"/api/annotate/jobs/{s.job.slug}/next/"),
    "api_answer_her_item": lambda c, s: post_json(c, f"/api/annotate/items/{s.held_item}/answers/", {"selected": [0]}),
    "api_jobs": lambda c, s: c.get("/api/annotate/jobs/"),
    "jobs_page": lambda c, s: c.get("/annotate/jobs/"),
    "report": lambda c, s: c.get(f"/annotate/jobs/{s.job.slug}/report/"),
    "outcomes_csv": lambda c, s: c.get(f"/annotate/jobs/{s.job.slug}/outcomes.csv"),
}
STAFF_ROUTES = {"jobs_page", "report", "outcomes_csv"}
REFUSED = {401, 403}
# What bob (entered by his own link) and staff may get on the annotators' routes: their own things only.
ALLOWED = {
    ("another_annotator", "work"): {200},
    ("another_annotator", "finish"): {302},  # to his own work page: he has no outcome yet
    ("another_annotator", "leave"): {302},  # he returns his own task
    ("another_annotator", "api_join_with_her_bare_id"): {200},  # a token for bob: the body is not looked at
    ("another_annotator", "api_join_by_session"): {200},
    ("another_annotator", "api_next"): {200},
    ("another_annotator", "api_jobs"): {200},
    ("another_annotator", "api_answer_her_item"): {403, 409},
    ("staff", "api_jobs"): {200},
}


def expected(persona: str, route: str) -> set[int]:
    if route in STAFF_ROUTES:
        return {200} if persona == "staff" else {302}
    if route.startswith("join"):
        return {400, 403}  # an unsigned id, or Prolific parameters on an in-house job
    return ALLOWED.get((persona, route), REFUSED)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("persona", PERSONAS)
def test_nobody_else_gets_anything_of_an_annotators_work(scene: Scene, persona: str, route: str) -> None:
    client = PERSONAS[persona](scene)
    before = scene.alice_state()  # (blocked: from the moment she was blocked)
    response = ROUTES[route](client, scene)

    assert response.status_code in expected(persona, route), (response.status_code, response.content[:300])
    if response.status_code == 302 and route in STAFF_ROUTES:
        assert response.url.startswith("/admin/login/")
    if route not in STAFF_ROUTES or persona != "staff":
        body = response.content.decode(errors="replace")
        for marker in scene.markers():
            assert marker not in body, f"{marker!r} leaked to {persona} by {route}"
    if response.get("Content-Type", "").startswith("application/json"):
        token = response.json().get("token") if isinstance(response.json(), dict) else None
        if token:
            assert worker_from_token(token).pk != scene.alice.pk
    assert scene.alice_state() == before
    if persona in ("anonymous", "second_browser", "staff"):
        assert "worker_id" not in client.session, "a session for a worker"


@pytest.mark.parametrize("persona", ["anonymous", "another_annotator", "second_browser", "staff"])
def test_her_token_is_not_handed_out_and_her_reservation_stays_hers(scene: Scene, persona: str) -> None:
    client = PERSONAS[persona](scene)
    for body in ({"worker": "alice"}, {"worker": "alice", "sig": "0" * 32}, {"PROLIFIC_PID": "alice"}, {}):
        response = post_json(client, f"/api/annotate/jobs/{scene.job.slug}/join/", body)
        token = response.json().get("token")
        assert token is None or worker_from_token(token).pk != scene.alice.pk
    assert Assignment.objects.get(item_id=scene.held_item).worker_id == scene.alice.pk


def test_an_id_without_a_signature_opens_no_door(settings) -> None:
    """The takeover of issue 27: with a victim's id and no signature, the chat join, the
    annotation join and the API join give nothing: no session, no token, no pages of hers."""
    settings.UNSIGNED_LINKS = False
    campaign = make_campaign()
    job = make_job("relevance", slug="takeover")
    victim = Worker.objects.create(external_id="victim", pseudonym="victim-pseudo")
    room = make_room(campaign, wizard=victim)
    seat = ChatAssignment.objects.get(room=room, worker=victim)
    attacker = Client()
    doors = [
        attacker.get(f"/join/{campaign.slug}/?worker=victim"),
        attacker.get(f"/annotate/join/{job.slug}/?worker=victim"),
        attacker.get(f"/annotate/join/{job.slug}/?PROLIFIC_PID=victim"),
        post_json(attacker, f"/api/annotate/jobs/{job.slug}/join/", {"worker": "victim"}),
        post_json(attacker, f"/api/annotate/jobs/{job.slug}/join/", {"PROLIFIC_PID": "victim"}),
    ]
    assert [door.status_code for door in doors] == [403, 403, 400, 403, 403]
    assert "token" not in doors[3].json() and "token" not in doors[4].json()
    assert "worker_id" not in attacker.session
    assert attacker.get(f"/a/{seat.pk}/wait/").status_code == 403
    assert attacker.get(f"/room/{room.pk}/").status_code == 403
    assert not JobEntry.objects.exists() and Worker.objects.get(pk=victim.pk).browser == ""
