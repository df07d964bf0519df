"""The FaithDial annotator's journey in Chromium, on a desktop and on a phone: join by link, read the
history, the knowledge and the response, tick labels, be told that an unfaithful response needs a
rewrite (and by the server when it is left unchanged), rewrite it, submit, and finish; the reviewer's
report shows the word diff."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from annotate.models import Assignment, AssignmentStatus
from annotate.services.jobs import ItemSpec, items_add, job_create
from tests.annotate.test_screens_browser import open_job
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]

KNOWLEDGE = "Blues is a music genre that originated in the Deep South of the United States around the 1860s."
RESPONSE = "Blues was invented in Chicago in 1950 by Muddy Waters."
REWRITE = "I don't know who invented it, but the blues originated in the Deep South around the 1860s."


@pytest.mark.parametrize(
    ("viewport", "worker"),
    [({"width": 1400, "height": 900}, "alice"), ({"width": 390, "height": 740}, "bob")],
    ids=["desktop", "phone"],
)
def test_an_annotator_labels_and_rewrites_a_response(chromium, viewport: dict, worker: str) -> None:
    slug = f"fd-{worker}"
    job = job_create(slug=slug, name="FaithDial", kind="faithdial", overlap=1)
    payload = {"topic": "Blues", "history": ["Hi!", "Hello, do you like music?", "Who invented the blues?"],
               "speaker": "Wizard", "knowledge": KNOWLEDGE, "response": RESPONSE, "dialog": 0, "turn": 0}
    if worker == "bob":
        del payload["topic"]  # as an imported FaithDial utterance: the release keeps no topic
    items_add(job=job, specs=[ItemSpec(key="0:0", payload=payload)])
    page = open_job(chromium, slug, worker, viewport)
    if worker == "bob":
        expect(page.get_by_test_id("topic")).to_be_hidden()
    else:
        expect(page.get_by_test_id("topic")).to_have_text("Blues")

    expect(page.get_by_test_id("knowledge")).to_have_text(KNOWLEDGE)
    expect(page.get_by_test_id("response")).to_have_text(RESPONSE)
    turns = page.get_by_test_id("turn")
    expect(turns).to_have_count(3)
    expect(turns.last).to_contain_text("Who invented the blues?")
    expect(turns.last.locator(".turn-speaker")).to_have_text("Seeker")
    rewrite = page.get_by_test_id("rewrite")
    expect(rewrite).to_have_value(RESPONSE)  # the response, to be edited

    page.get_by_test_id("submit").click()  # nothing ticked
    expect(page.get_by_test_id("answer-error")).to_have_text("Tick at least one BEGIN label and one VRM label.")
    page.get_by_test_id("begin-hallucination").check()
    page.get_by_test_id("vrm-edification").check()
    expect(page.get_by_test_id("rewrite-needed")).to_be_visible()
    page.get_by_test_id("submit").click()  # unchanged: the server refuses it
    expect(page.get_by_test_id("answer-error")).to_contain_text("the rewrite is the response unchanged")
    assert not Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).exists()

    rewrite.fill(REWRITE)
    expect(page.get_by_test_id("answer-error")).to_be_hidden()  # the answer changed: its error goes
    expect(page.get_by_test_id("rewrite-needed")).to_be_hidden()
    expect(page.get_by_test_id("rewrite-count")).to_have_text(f"{len(REWRITE)} of 1000 characters")
    page.get_by_test_id("submit").click()
    expect(page).to_have_url(re.compile(rf"/annotate/{slug}/done/$"))
    answer = Assignment.objects.get(status=AssignmentStatus.SUBMITTED).answer
    assert answer == {"begin": ["Hallucination"], "vrm": ["Edification"], "response": REWRITE}
    assert page.script_errors == []  # type: ignore[attr-defined]
