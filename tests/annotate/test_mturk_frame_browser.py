"""An MTurk annotation job inside MTurk's cross-site frame (tests/browser/mturk_frame.py): the
preview, the entry, the items, and the post of the outcome and code back to externalSubmit."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from annotate.models import JobEntry
from collect.models import Platform, Worker
from tests.annotate.conftest import make_job
from tests.browser.mturk_frame import PREVIEW, MTurkSite, mturk_site  # noqa: F401  (the fixture)
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


def test_an_mturk_annotation_job_is_done_inside_the_frame_and_the_hit_posted_back(mturk_site: MTurkSite, chromium) -> None:
    browser, base_url = chromium
    # The stand-in worker site is http://localhost:<port>; the job must be on another site, as on MTurk.
    base_url = base_url.replace("://localhost:", "://127.0.0.1:")
    assert base_url.startswith("http://127.0.0.1:")
    job = make_job("relevance", slug="turk-rel", items=2, overlap=1, completion_code="GW-TURK-ANNOT",
                   platform=Platform.MTURK, instructions="Select every sentence the assistant could use.")
    join = f"{base_url}/annotate/join/{job.slug}/"

    preview = mturk_site.open_hit(browser, join, worker_id="", assignment_id=PREVIEW)
    expect(preview.frame.get_by_test_id("mturk-preview")).to_contain_text("Select every sentence")
    assert not Worker.objects.exists()

    hit = mturk_site.open_hit(browser, join, worker_id="A1ANNOT", assignment_id="3ASSIGNANNOT")
    frame = hit.frame
    expect(frame.get_by_test_id("topic")).to_have_text("Blues")
    first = frame.locator("#annotate").get_attribute("data-item-id") or ""
    frame.get_by_test_id("none").check()
    frame.get_by_test_id("submit").click()
    expect(frame.locator("#annotate")).not_to_have_attribute("data-item-id", first)
    frame.get_by_test_id("none").check()
    frame.get_by_test_id("submit").click()  # the last item: on to the finish page, which posts the HIT

    form = mturk_site.submission("3ASSIGNANNOT")
    assert form["outcome"] == ["completed"] and form["completion_code"] == ["GW-TURK-ANNOT"]
    frame.wait_for_url(re.compile(r"/mturk/externalSubmit$"))
    expect(frame.locator("#submitted")).to_be_visible()
    entry = JobEntry.objects.get(worker__external_id="A1ANNOT")
    assert (entry.outcome, entry.session_id, entry.turk_submit_to) == ("completed", "3ASSIGNANNOT", mturk_site.origin)
    assert len(mturk_site.submissions_for("3ASSIGNANNOT")) == 1
    assert hit.script_errors == []
