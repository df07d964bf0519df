"""Every early ending of a paid chat reaches the worker's page by itself, with no reload, on every
platform: Prolific sends the worker to its completion page with the outcome's code, an MTurk HIT
(inside MTurk's cross-site frame) posts the outcome and code to externalSubmit, and an in-house
worker sees the finish page with the code. The campaign's timeouts are a few seconds here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, Frame, Page, expect

from collect.lifecycle.links import join_link
from collect.lifecycle.outcomes import code_for
from collect.models import Assignment, Campaign, Outcome, Platform
from tests.browser.mturk_frame import MTurkSite
from tests.paid.standin import StandIn, serve
from tests.paid.sweeper import beat_stand_in

pytestmark = [pytest.mark.backends, pytest.mark.browser]

PLATFORMS = [Platform.INHOUSE, Platform.PROLIFIC, Platform.MTURK]
ROOM_URL = re.compile(r"/room/[0-9a-f-]{36}/$")
QUIZ = {
    "max_attempts": 1,
    "roles": {"wizard": {"instructions": "Use the knowledge."}, "apprentice": {"instructions": "Be curious."}},
    "quiz": [{"question": "Who sees the knowledge?", "choices": ["Both", "The wizard"], "answer": 1}],
}


@dataclass
class Seat:
    """One worker's browser: `page` is the tab, `view` where the task's pages show (the tab itself,
    or on MTurk the HIT's frame inside the worker site's page)."""

    name: str
    external_id: str  # the worker's id on the platform
    page: Page
    view: Page | Frame
    mturk_assignment: str = ""

    @property
    def errors(self) -> list[str]:
        return self.page.script_errors  # type: ignore[attr-defined]


_prolific: StandIn | None = None  # the run's one stand-in, started by the first test that asks


@pytest.fixture
def prolific(settings: Any) -> StandIn:
    """A stand-in for Prolific's completion page (request it before the server, like mturk_site):
    one for the run, each test starting with no requests seen."""
    global _prolific
    if _prolific is None:
        _prolific, _ = serve()
    _prolific.requests.clear()
    _prolific.replies.clear()
    settings.PROLIFIC_COMPLETE_URL = f"{_prolific.url}/submissions/complete"
    return _prolific


@dataclass
class Study:
    platform: str
    campaign: Campaign
    base_url: str
    browser: Browser
    mturk: MTurkSite
    prolific: StandIn

    def open(self, name: str) -> Seat:
        """The worker follows their platform's link (on MTurk: takes the HIT on the worker site)."""
        join = f"{self.base_url}/join/{self.campaign.slug}/"
        if self.platform == Platform.MTURK:
            hit = self.mturk.open_hit(self.browser, join, worker_id=f"A{name.upper()}", assignment_id=f"3ASSIGN{name.upper()}")
            hit.page.script_errors = hit.script_errors  # type: ignore[attr-defined]
            return Seat(name, hit.worker_id, hit.page, hit.frame, mturk_assignment=hit.assignment_id)
        page = self.browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
        page.script_errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
        if self.platform == Platform.PROLIFIC:
            external_id = f"PID{name}0123"
            page.goto(f"{join}?PROLIFIC_PID={external_id}&STUDY_ID=STUDY1&SESSION_ID=SESSION{name}")
        else:
            external_id = name
            page.goto(join_link(base=self.base_url, campaign_slug=self.campaign.slug, worker=name))
        return Seat(name, external_id, page, page)

    def waiting(self, name: str) -> Seat:
        seat = self.open(name)
        expect(seat.view.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
        return seat

    def pair(self) -> dict[str, Seat]:
        """Two workers paired into one room, by role."""
        seats = [self.waiting("alice"), self.open("bob")]
        for seat in seats:
            seat.view.wait_for_url(ROOM_URL)
            expect(seat.view.locator("#room")).to_have_attribute("data-status", "choosing_topic")
        return {seat.view.locator("#room").get_attribute("data-role"): seat for seat in seats}

    def expect_ending(self, seat: Seat, outcome: str) -> None:
        """The worker's page got there by itself: the platform has the outcome and its code."""
        code = code_for(self.campaign, outcome)
        if self.platform == Platform.MTURK:
            form = self.mturk.submission(seat.mturk_assignment)
            assert (form["outcome"], form["completion_code"]) == ([outcome], [code])
            expect(seat.view.locator("#submitted")).to_be_visible()
        elif self.platform == Platform.PROLIFIC and code:
            seat.page.wait_for_url(f"{self.prolific.url}/submissions/complete?cc={code}")
            completions = [seen.query.get("cc") for seen in self.prolific.requests if seen.path == "/submissions/complete"]
            assert completions == [[code]]
        else:
            expect(seat.view.get_by_test_id("done")).to_have_attribute("data-outcome", outcome)
            if code:
                expect(seat.view.get_by_test_id("completion-code")).to_have_text(code)
            else:
                expect(seat.view.get_by_test_id("no-code")).to_be_visible()
        assignment = Assignment.objects.get(campaign=self.campaign, worker__external_id=seat.external_id)
        assert (assignment.outcome, assignment.completion_code) == (outcome, code)
        assert seat.errors == []


@pytest.fixture(params=PLATFORMS)
def study(request: pytest.FixtureRequest, mturk_site: MTurkSite, prolific: StandIn, browser: Browser, daphne_server: str, wow_campaign: Campaign) -> Study:
    Campaign.objects.filter(pk=wow_campaign.pk).update(platform=request.param)
    wow_campaign.refresh_from_db()
    return Study(request.param, wow_campaign, daphne_server, browser, mturk_site, prolific)


def _set(campaign: Campaign, **fields: object) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(**fields)
    campaign.refresh_from_db()


def test_a_worker_who_fails_the_quiz_is_screened_out(study: Study) -> None:
    _set(study.campaign, onboarding=QUIZ)
    seat = study.open("carol")
    expect(seat.view.get_by_test_id("quiz")).to_be_visible()
    seat.view.get_by_label("Both").check()
    seat.view.get_by_role("button", name="Check my answers").click()
    study.expect_ending(seat, Outcome.SCREENED_OUT)


def test_a_worker_nobody_joins_gets_the_no_partner_ending(study: Study) -> None:
    _set(study.campaign, wait_timeout_seconds=3)
    seat = study.open("dave")
    expect(seat.view.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    study.expect_ending(seat, Outcome.NO_PARTNER)


def test_a_worker_who_leaves_the_waiting_room_returns_the_task(study: Study) -> None:
    seat = study.waiting("erin")
    seat.view.get_by_test_id("leave").click()
    seat.view.get_by_test_id("confirm-yes").click()  # "Leave the study" asks once more
    study.expect_ending(seat, Outcome.RETURNED)


def test_the_worker_whose_partner_left_gets_the_partner_left_ending(study: Study) -> None:
    _set(study.campaign, disconnect_grace_seconds=2)
    seats = study.pair()
    gone, stays = seats["wizard"], seats["apprentice"]
    gone.page.context.close()
    with beat_stand_in():
        study.expect_ending(stays, Outcome.PARTNER_LEFT)
    assert Assignment.objects.get(campaign=study.campaign, role="wizard").outcome == Outcome.LEFT


def test_an_idle_worker_stalls_and_the_partner_gets_the_partner_stalled_ending(study: Study) -> None:
    _set(study.campaign, turn_timeout_seconds=3)
    seats = study.pair()
    room = Assignment.objects.filter(campaign=study.campaign).first().room
    # Whoever must choose the topic never does.
    idle = seats[room.first_speaker]
    waiting = next(seat for seat in seats.values() if seat is not idle)
    with beat_stand_in():
        study.expect_ending(waiting, Outcome.PARTNER_STALLED)
        study.expect_ending(idle, Outcome.STALLED)
