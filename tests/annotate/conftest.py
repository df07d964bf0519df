"""The people of the annotation tests: alice and bob annotate, charlie is an annotator who was never
given the item in question. Jobs are built through the services, as researchers build them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from annotate.identity import worker_token
from annotate.models import Item, Job, JobEntry
from annotate.services.jobs import ItemSpec, items_add, job_create
from collect.models import Worker

ARTICLES = {
    "Blues": ["Blues is a music genre.", "It originated in the Deep South.", "Blues uses blue notes."],
    "Guitar": ["The guitar has six strings.", "It is played by strumming."],
}


def relevance_payload(n: int) -> dict[str, Any]:
    return {
        "id": f"ctx-{n}",
        "topic": "Blues",
        "turns": ["Do you like the blues?", "I love it, especially the guitar.", f"Where does it come from? ({n})"],
        "start_speaker": "Human",
        "knowledges": [{title: sentences} for title, sentences in ARTICLES.items()],
        "gold_sentence": {"chosen_Blues_1": "It originated in the Deep South."},
        "candidates": [{"article": t, "sentence": s} for t, sentences in ARTICLES.items() for s in sentences],
    }


def dialog_payload(n: int) -> dict[str, Any]:
    return {
        "topic": "Uruguay",
        "aspects": ["Economy", "Culture"],
        "messages": [
            {"sender": "user", "text": f"Tell me about Uruguay ({n})."},
            {"sender": "assistant", "text": "Uruguay is a country in South America."},
            {"sender": "user", "text": "Interesting, what about its economy?"},
        ],
    }


def make_job(kind: str, *, items: int = 3, slug: str | None = None, **settings: Any) -> Job:
    job = job_create(slug=slug or f"{kind.replace('_', '-')}-job", name=f"{kind} job", kind=kind, **settings)
    build = relevance_payload if kind == "relevance" else dialog_payload
    items_add(job=job, specs=[ItemSpec(key=f"k{n}", payload=build(n)) for n in range(items)])
    return job


@pytest.fixture
def relevance_job(db) -> Job:
    return make_job("relevance", overlap=2)


@pytest.fixture
def acts_job(db) -> Job:
    return make_job("dialog_acts", overlap=2)


@dataclass
class People:
    alice: Worker
    bob: Worker
    charlie: Worker


@pytest.fixture
def people(db) -> People:
    return People(*(Worker.objects.create(external_id=name) for name in ("alice", "bob", "charlie")))


class Api:
    """The annotation API as one annotator calls it (bearer token from the join endpoint), in the
    jobs they entered by link (their JobEntry is made on first use, as the join link makes it;
    the entry rules themselves are tested in test_entry.py and test_authorization.py)."""

    def __init__(self, client: Client, worker: Worker) -> None:
        self.client = client
        self.worker = worker
        self.auth = {"HTTP_AUTHORIZATION": f"Bearer {worker_token(worker)}"}

    def enter(self, job: Job) -> None:
        JobEntry.objects.get_or_create(job=job, worker=self.worker)

    def next(self, job: Job) -> Any:
        self.enter(job)
        return self.client.post(f"/api/annotate/jobs/{job.slug}/next/", **self.auth)

    def answer(self, item_id: int, body: dict[str, Any]) -> Any:
        item = Item.objects.filter(pk=item_id).select_related("job").first()
        if item is not None:
            self.enter(item.job)
        return self.client.post(
            f"/api/annotate/items/{item_id}/answers/", json.dumps(body), content_type="application/json", **self.auth
        )


@pytest.fixture
def api(people: People) -> dict[str, Api]:
    return {name: Api(Client(), getattr(people, name)) for name in ("alice", "bob", "charlie")}


@pytest.fixture
def chromium(live_server, chromium_browser):
    """Debian's chromium against Django's live server (plain HTTP is all the annotation screens
    need): (browser, base_url)."""
    return chromium_browser, live_server.url
