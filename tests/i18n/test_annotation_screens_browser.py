"""Annotation screens of a Simplified Chinese job in a real browser: relevance and dialog acts, from
the first item to the finish page, with no English word left but the items' own text (data)."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from annotate.models import Assignment, AssignmentStatus, Job
from tests.annotate.conftest import chromium, make_job  # noqa: F401  (fixture)
from tests.annotate.test_screens_browser import open_job
from tests.browser.test_chinese_worker_pages import DATA, assert_chinese
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
    pytest.mark.usefixtures("compiled_catalogs"),
]

ITEM_DATA = f"{DATA}, kbd, code, #topic, #aspects, .turn-text, .candidate-articles legend, .sentence-text, .candidate span, .act-message p"


def test_a_chinese_relevance_job_has_no_english_left(chromium) -> None:  # noqa: F811
    job = make_job("relevance", slug="rel-zh", items=1, overlap=1, instructions="选出助手可以使用的每一个句子。")
    Job.objects.filter(pk=job.pk).update(language="zh-hans", name="中文标注任务")
    page = open_job(chromium, job.slug, "alice", {"width": 1400, "height": 900})
    expect(page.get_by_test_id("candidate")).to_have_count(5)
    expect(page.get_by_test_id("selected-count")).to_have_text("已选 0 个")
    assert_chinese(page, selectors=ITEM_DATA)
    page.get_by_test_id("submit").click()  # nothing selected
    expect(page.get_by_test_id("answer-error")).to_have_text("请选出下一句回复中可以使用的每一个句子，或勾选“都不是”。")
    assert_chinese(page, selectors=ITEM_DATA)
    page.get_by_test_id("none").check()
    page.get_by_test_id("submit").click()
    expect(page).to_have_url(re.compile(r"/annotate/rel-zh/done/$"))
    expect(page.get_by_test_id("done").locator("h1")).to_have_text("全部完成，谢谢！")
    assert_chinese(page, selectors=ITEM_DATA)
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_an_answer_the_server_refuses_is_explained_in_the_jobs_language(chromium) -> None:  # noqa: F811
    """The API's detail is English (it names the item); the page shows the catalog's text for its code."""
    job = make_job("relevance", slug="rel-zh-twice", items=1, overlap=1, instructions="选出助手可以使用的每一个句子。")
    Job.objects.filter(pk=job.pk).update(language="zh-hans", name="中文标注任务")
    page = open_job(chromium, job.slug, "alice", {"width": 1400, "height": 900})
    expect(page.get_by_test_id("candidate")).to_have_count(5)
    Assignment.objects.filter(item__job=job).update(status=AssignmentStatus.SUBMITTED)  # answered in another tab
    page.get_by_test_id("none").check()
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("answer-error")).to_have_text("你已经回答过这一项。请刷新页面，进入下一项。")
    assert_chinese(page, selectors=ITEM_DATA)
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_a_chinese_dialog_act_job_has_no_english_left(chromium) -> None:  # noqa: F811
    job = make_job("dialog_acts", slug="acts-zh", items=1, overlap=1)
    Job.objects.filter(pk=job.pk).update(language="zh-hans", name="中文标注任务")
    page = open_job(chromium, job.slug, "bob", {"width": 1400, "height": 900})
    expect(page.get_by_test_id("act-message")).to_have_count(3)
    expect(page.locator("#palette-target")).to_have_text(re.compile(r"^第 1 条消息（(用户|助手)）$"))
    page.get_by_test_id("act-guide").locator("summary").click()
    assert_chinese(page, selectors=ITEM_DATA)
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("answer-error")).to_have_text("第 2 和 3 条消息还没有标注行为。请标注它们，或再次提交以不带行为发送。")
    assert_chinese(page, selectors=ITEM_DATA)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/annotate/acts-zh/done/$"))
    assert_chinese(page, selectors=ITEM_DATA)
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_a_chinese_pairwise_job_has_no_english_left(chromium) -> None:  # noqa: F811
    from annotate.services.jobs import items_add, job_create
    from annotate.kinds.pairwise.pairs import pair_specs
    from tests.annotate.pairwise_data import conversation

    job = job_create(slug="pairs-zh", name="哪个机器人？", kind="pairwise", overlap=1, question="engaging", completion_code="GW-ZH")
    items_add(job=job, specs=pair_specs(job, [conversation(m, n) for m in ("kb_bot", "baseline") for n in range(1)]))
    Job.objects.filter(pk=job.pk).update(language="zh-hans")
    page = open_job(chromium, job.slug, "alice", {"width": 1400, "height": 900})
    expect(page.get_by_test_id("question")).to_have_text("如果要进行一场长时间的对话，你更愿意和谁聊？")
    expect(page.get_by_test_id("option-left")).to_have_text("我更愿意和说话人 1聊")
    pair_data = f"{ITEM_DATA}, .pair-turn p, [data-testid=pair-topic]"
    assert_chinese(page, selectors=pair_data)
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("error")).to_have_text("请在两位说话人中选择一位。")
    page.keyboard.press("1")
    page.get_by_test_id("reason").fill("回答更有趣。")
    page.get_by_test_id("submit").click()
    expect(page).to_have_url(re.compile(r"/annotate/pairs-zh/done/$"))
    assert_chinese(page, selectors=pair_data)
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_a_chinese_duconv_scoring_job_is_chinese_from_end_to_end(chromium, tmp_path) -> None:  # noqa: F811
    """On DuConv's own Chinese dialogues even the data is Chinese: nothing is excepted but key caps."""
    from django.core.management import call_command

    from annotate.services.jobs import job_create, job_items_from_campaigns
    from tests.duconv.conftest import SAMPLE

    if not SAMPLE.is_file():
        pytest.skip(f"{SAMPLE} is absent (shared development data)")
    (tmp_path / "dev.txt").write_text("\n".join(SAMPLE.read_text(encoding="utf-8").splitlines()[:1]) + "\n", encoding="utf-8")
    call_command("import_dataset", "duconv", str(tmp_path / "dev.txt"), "--job", "duconv-one", verbosity=0)
    job = job_create(slug="duconv-eval-zh", name="知识对话人工评测", kind="duconv_eval", overlap=1)
    job_items_from_campaigns(job=job, campaigns=["duconv-one"])
    Job.objects.filter(pk=job.pk).update(language="zh-hans")
    page = open_job(chromium, job.slug, "dora", {"width": 1400, "height": 900})
    expect(page.get_by_test_id("goal-path")).to_have_text(re.compile(r"^开始 → "))
    expect(page.get_by_test_id("scale-coherence")).to_contain_text("有一条回复离题或与前文矛盾。")
    page.locator("details.knowledge-box summary").click()
    assert_chinese(page, selectors=".brand, kbd")
    page.get_by_test_id("coherence-2").click()
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("error")).to_have_text("请在两个量表上都选择分数。")
    page.get_by_test_id("goal_completion-1").click()
    page.get_by_test_id("submit").click()
    expect(page).to_have_url(re.compile(r"/annotate/duconv-eval-zh/done/$"))
    assert_chinese(page, selectors=".brand, [data-testid=completion-code]")
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_numbers_are_written_as_the_templates_write_them_in_arabic(chromium) -> None:  # noqa: F811
    """The modules' counts (static/js/i18n.js) as Django writes the pages' whole numbers: Latin digits
    (not the Arabic-Indic ones Intl chooses for ar-EG or fa) and no thousands separator."""
    job = make_job("relevance", slug="rel-ar", items=1, overlap=1)
    Job.objects.filter(pk=job.pk).update(language="ar")  # a stub: set outside the admin
    page = open_job(chromium, job.slug, "alice", {"width": 1400, "height": 900})
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_test_id("progress")).to_have_attribute("data-answered", "0")
    progress = page.get_by_test_id("progress").inner_text()
    assert re.search(r"\b0\b", progress) and not re.search("[\u0660-\u0669\u06f0-\u06f9]", progress), progress
    # The page's own instance of the module (same URL), in the page's language.
    written = page.evaluate("""async () => {
      const screen = document.querySelector('script[type=module]').src;
      const { formatNumber, language } = await import(new URL('../js/i18n.js', screen).href);  // as the screen's module imports it
      return [language, formatNumber(1234567)];
    }""")
    assert written == ["ar", "1234567"]
