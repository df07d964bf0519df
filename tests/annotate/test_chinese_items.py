"""The annotation screens take Chinese dialogues: a Chinese DuConv file becomes a DuConv evaluation
job and a Chinese Wizard-of-Wikipedia-shaped file a relevance job; annotators get the text exactly
as written and their answers are stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from annotate.models import Item
from annotate.services.jobs import job_create, job_items_from_campaigns
from tests.annotate.conftest import api, people  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

NOLAN = "克里斯托弗·诺兰"
SESSION = {
    "goal": [["START", "盗梦空间", NOLAN], ["盗梦空间", "导演", NOLAN]],
    "knowledge": [["盗梦空间", "导演", NOLAN], ["盗梦空间", "上映时间", "2010年"], [NOLAN, "出生地", "伦敦"]],
    "conversation": ["你好！周末看电影了吗？", "看了😀", "《盗梦空间》是2010年的，你看过吗？", "看过，很烧脑！",
                     "它的导演是克里斯托弗・诺兰，出生在伦敦。", "原来如此，谢谢！"],
}


def test_a_chinese_duconv_file_is_scored_by_annotators(tmp_path: Path, api) -> None:  # noqa: F811
    path = tmp_path / "dev.txt"
    path.write_text(json.dumps(SESSION, ensure_ascii=False) + "\n", encoding="utf-8")
    call_command("import_dataset", "duconv", str(path), "--job", "zh-dev", verbosity=0)
    job = job_create(slug="zh-eval", name="中文 DuConv 评测", kind="duconv_eval", overlap=1)
    job_items_from_campaigns(job=job, campaigns=["zh-dev"])
    (item,) = Item.objects.filter(job=job)
    # The topics came up in order (B typed with another middle dot) and three triples' values were said.
    assert item.payload["auto_goal_completion"] == 2

    served = api["alice"].next(job).json()["item"]
    assert [m["text"] for m in served["messages"]] == SESSION["conversation"]
    assert served["goal"] == SESSION["goal"] and served["knowledge"] == SESSION["knowledge"]
    answered = api["alice"].answer(served["id"], {"scores": {"coherence": 3, "goal_completion": 2}})
    assert answered.status_code == 201, answered.content

    page = Client().get(f"/annotate/join/{job.slug}/?worker=dora", follow=True)
    assert page.status_code == 200 and "duconv_eval/screen.js" in page.content.decode()


def test_a_chinese_wizard_of_wikipedia_file_becomes_relevance_items(tmp_path: Path, api) -> None:  # noqa: F811
    dialogue = {
        "chosen_topic": "盗梦空间", "persona": "我喜欢科幻电影。", "wizard_eval": 5,
        "chosen_topic_passage": ["《盗梦空间》是一部2010年的科幻电影。", "导演是克里斯托弗·诺兰。"],
        "dialog": [
            {"speaker": "0_Apprentice", "text": "你看过《盗梦空间》吗？", "retrieved_topics": ["克里斯托弗·诺兰"],
             "retrieved_passages": [{"克里斯托弗·诺兰": ["克里斯托弗·诺兰是英国导演。"]}]},
            {"speaker": "1_Wizard", "text": "看过！它是2010年的科幻片。", "retrieved_topics": [], "retrieved_passages": [],
             "checked_sentence": {"chosen_盗梦空间_0": "《盗梦空间》是一部2010年的科幻电影。"},
             "checked_passage": {"chosen_topic_0_盗梦空间": "盗梦空间"}},
        ],
    }
    path = tmp_path / "wow_zh.json"
    path.write_text(json.dumps([dialogue], ensure_ascii=False), encoding="utf-8")
    call_command("import_dataset", "wow-relevance", str(path), "--job", "zh-rel", verbosity=0)
    item = Item.objects.get(job__slug="zh-rel")
    assert item.payload["turns"] == ["你看过《盗梦空间》吗？"]
    sentences = [c["sentence"] for c in item.payload["candidates"]]
    assert sentences == ["《盗梦空间》是一部2010年的科幻电影。", "导演是克里斯托弗·诺兰。", "克里斯托弗·诺兰是英国导演。"]

    served = api["alice"].next(item.job).json()["item"]
    assert [t["text"] for t in served["turns"]] == ["你看过《盗梦空间》吗？"]
    answered = api["alice"].answer(served["id"], {"selected": [0]})
    assert answered.status_code == 201, answered.content
