"""The DuConv scoring screen in a real browser: the goal, the Chinese conversation and the rubric,
a refused half answer, then a stored one."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotate.models import Assignment, AssignmentStatus
from annotate.services.jobs import job_create, job_items_from_campaigns
from tests.annotate.conftest import chromium  # noqa: F401 (fixture)
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


def test_it_scores_a_dialogue_on_the_rubric(chromium, sample_path: Path, tmp_path: Path) -> None:  # noqa: F811
    lines = sample_path.read_text(encoding="utf-8").splitlines()[:2]
    (tmp_path / "dev.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    call_command("import_dataset", "duconv", str(tmp_path / "dev.txt"), "--job", "duconv-two", verbosity=0)
    job = job_create(slug="duconv-eval-browser", name="DuConv evaluation", kind="duconv_eval", overlap=1)
    job_items_from_campaigns(job=job, campaigns=["duconv-two"])
    browser, base_url = chromium
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base_url}/annotate/join/{job.slug}/?worker=dora")
    expect(page).to_have_url(re.compile(rf"/annotate/{job.slug}/$"))

    expect(page.get_by_test_id("goal-path")).to_have_text("START → 米歇尔 · 菲佛 → 黛迪 · 菲佛")
    expect(page.get_by_test_id("dialogue-message")).to_have_count(8)
    expect(page.get_by_test_id("dialogue-message").first).to_contain_text("有些 外国 的 女 明星")
    expect(page.get_by_test_id("scale-coherence")).to_contain_text("One response is irrelevant or contradictory.")
    page.get_by_test_id("coherence-2").click()
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("error")).to_have_text("Choose a score on both scales.")
    page.get_by_test_id("goal_completion-2").click()
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("goal-path")).to_have_text(re.compile("START → 这个杀手不太冷"))
    answer = Assignment.objects.get(job=job, worker__external_id="dora", status=AssignmentStatus.SUBMITTED)
    assert answer.answer == {"coherence": 2, "goal_completion": 2}
    assert errors == []
