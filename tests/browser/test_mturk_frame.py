"""An MTurk HIT inside MTurk's cross-site frame: preview, join, pairing, the chat and the post back
to externalSubmit, with the session kept by cookies that work in a third-party frame."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Assignment, Campaign, Outcome, Platform, Room
from tests.browser.mturk_frame import PREVIEW, Hit, MTurkSite
from tests.browser.test_wow_browser import choose_topic, send, wait_for_knowledge

pytestmark = [pytest.mark.backends, pytest.mark.browser]

ROOM_URL = re.compile(r"/room/[0-9a-f-]{36}/$")


def mturk_pair(mturk_site: MTurkSite, browser: Browser, base_url: str, campaign: Campaign) -> tuple[Hit, Hit, Room]:
    """Two workers take the HIT on the worker site; both land in one room. Returns (wizard, apprentice, room)."""
    join = f"{base_url}/join/{campaign.slug}/"
    alice = mturk_site.open_hit(browser, join, worker_id="A1ALICE", assignment_id="3ASSIGNALICE")
    expect(alice.frame.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    bob = mturk_site.open_hit(browser, join, worker_id="A2BOB", assignment_id="3ASSIGNBOB")
    for hit in (alice, bob):
        hit.frame.wait_for_url(ROOM_URL)
        expect(hit.frame.locator("#room")).to_have_attribute("data-status", "choosing_topic")
    hits = {hit.frame.locator("#room").get_attribute("data-role"): hit for hit in (alice, bob)}
    return hits["wizard"], hits["apprentice"], Room.objects.get(campaign=campaign)


def test_the_preview_shows_inside_the_frame(mturk_site: MTurkSite, browser: Browser, daphne_server: str, wow_campaign: Campaign) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(platform=Platform.MTURK)
    hit = mturk_site.open_hit(browser, f"{daphne_server}/join/{wow_campaign.slug}/", worker_id="", assignment_id=PREVIEW)
    expect(hit.frame.locator("h1")).to_be_visible()
    assert Assignment.objects.count() == 0


def test_two_workers_finish_a_chat_inside_mturks_frame_and_the_hit_is_submitted(
    mturk_site: MTurkSite, browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(platform=Platform.MTURK)
    wizard, apprentice, room = mturk_pair(mturk_site, browser, daphne_server, wow_campaign)
    w, a = wizard.frame, apprentice.frame
    choose_topic(w, a, room, "Blues")  # type: ignore[arg-type]  (a Frame has the Page's locators)
    order = ["wizard", "apprentice"] if room.first_speaker == "wizard" else ["apprentice", "wizard"]
    frames = {"wizard": w, "apprentice": a}
    for seq in range(1, 5):
        role = order[(seq - 1) % 2]
        if role == "wizard":
            wait_for_knowledge(w, after_seq=seq - 1)  # type: ignore[arg-type]
            w.get_by_test_id("no-sentence").click()
        send(frames[role], frames[order[seq % 2]], f"Line {seq} about the blues.", seq)  # type: ignore[arg-type]
    w.get_by_test_id("end-button").click()
    w.get_by_test_id("confirm-yes").click()  # "End chat" asks once more
    a.locator('[data-testid="rating-option"][data-value="5"]').click()
    a.get_by_test_id("rating-submit").click()

    for hit in (wizard, apprentice):
        form = mturk_site.submission(hit.assignment_id)
        assert form["outcome"] == [Outcome.COMPLETED]
        assert form["completion_code"] == ["GW-BROWSER-OK"]
        hit.frame.wait_for_url(f"{mturk_site.origin}/mturk/externalSubmit")
        expect(hit.frame.locator("#submitted")).to_be_visible()
        assert hit.script_errors == []
    # Once each: a reload of the finish page does not post again by itself.
    assert [len(mturk_site.submissions_for(hit.assignment_id)) for hit in (wizard, apprentice)] == [1, 1]
    assert set(Assignment.objects.filter(room=room).values_list("outcome", flat=True)) == {Outcome.COMPLETED}
