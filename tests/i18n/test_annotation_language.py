"""An annotation job's language: the pairwise question the API serves and the job's pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from annotate.models import Job
from tests.annotate.conftest import Api, api, people  # noqa: F401  (fixtures)
from tests.annotate.pairwise_data import conversations, write
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


@pytest.fixture
def job(tmp_path: Path) -> Job:
    data = write(tmp_path / "pairs.json", conversations(2))
    call_command("import_dataset", "pairwise", str(data), "--job", "acute", "--question=humanlike", stdout=open("/dev/null", "w"))
    return Job.objects.get(slug="acute")


def test_a_chinese_job_serves_its_pairwise_question_in_chinese(api: dict[str, Api], job: Job) -> None:  # noqa: F811
    english = api["alice"].next(job).json()["item"]
    assert english["question"] == "Which speaker sounds more human?"
    assert english["conversations"][0]["option"] == "Speaker 1 sounds more human"
    Job.objects.filter(pk=job.pk).update(language="zh-hans")
    item = api["bob"].next(job).json()["item"]
    assert item["question"] == "哪位说话人听起来更像真人？"
    assert item["reason_prompt"] == "请简要说明你选择的理由（几个词或一句话即可）"
    assert [c["option"] for c in item["conversations"]] == ["说话人 1听起来更像真人", "说话人 2听起来更像真人"]
    assert {turn["speaker"] for turn in item["conversations"][0]["turns"]} == {"说话人 1", "搭档"}


@pytest.mark.parametrize(("allowed", "expected"), [(True, "哪位说话人听起来更像真人？"), (False, "Which speaker sounds more human?")])
def test_the_browser_language_words_the_items_only_where_the_job_allows_it(
    api: dict[str, Api], job: Job, client, people, allowed: bool, expected: str  # noqa: F811
) -> None:
    """The items follow the page's language choice: the job's, or the browser's where it allows it."""
    Job.objects.filter(pk=job.pk).update(language="en", browser_language=allowed)
    chinese_browser = "de-DE,de;q=0.9,zh-CN;q=0.8,en;q=0.5"
    alice = api["alice"]
    alice.enter(job)
    item = alice.client.post(f"/api/annotate/jobs/{job.slug}/next/", HTTP_ACCEPT_LANGUAGE=chinese_browser, **alice.auth).json()["item"]
    assert item["question"] == expected
    session = client.session
    session["worker_id"] = people.alice.pk
    session.save()
    page = client.get(f"/annotate/{job.slug}/", HTTP_ACCEPT_LANGUAGE=chinese_browser).content.decode()
    assert f'<html lang="{"zh-hans" if allowed else "en"}"' in page


def test_a_chinese_job_renders_its_screen_and_finish_page_in_chinese(client, job: Job, people) -> None:  # noqa: F811
    Job.objects.filter(pk=job.pk).update(language="zh-hans")
    session = client.session
    session["worker_id"] = people.alice.pk
    session.save()
    refused = client.get(f"/annotate/{job.slug}/").content.decode()
    assert "请使用你的链接" in refused and "请先通过发给你的链接打开此任务。" in refused
    Api(client, people.alice).enter(job)
    session["worker_id"] = people.alice.pk
    session.save()
    html = client.get(f"/annotate/{job.slug}/").content.decode()
    assert '<html lang="zh-hans"' in html and "退出任务" in html and "Leave the job" not in html
    client.post(f"/annotate/{job.slug}/leave/")
    done = client.get(f"/annotate/{job.slug}/done/").content.decode()
    assert "已退回" in done and "你已退回此任务。" in done
