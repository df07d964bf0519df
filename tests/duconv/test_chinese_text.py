"""Chinese text in DuConv: topic mentions without word boundaries, with full-width punctuation and
any middle dot; the Chinese demo graph's goals; the built-in DuConv bot answering in Chinese."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command

from collect.tasktypes.duconv.completion import goal_completion
from collect.tasktypes.duconv.config import campaign_problems
from collect.tasktypes.duconv.demo import ZH_DEMO_LANGUAGE, ZH_DEMO_SLUG, ZH_DEMO_TSV, duconv_zh_demo_ensure
from collect.tasktypes.modelchat.bots import GoalBot, NoKnowledgeBot
from collect.tasktypes.duconv.protocol import DUCONV
from retrieval.graph.services import goal_generate, text_mentions

NOLAN = "克里斯托弗·诺兰"


@pytest.mark.parametrize(
    "text",
    [
        "你知道克里斯托弗·诺兰吗",  # as in the graph
        "你知道克里斯托弗・诺兰吗",  # katakana middle dot (Japanese input methods)
        "你知道克里斯托弗•诺兰吗",  # bullet
        "你知道克里斯托弗诺兰吗",  # no dot at all
        "你知道 克里斯托弗 · 诺兰 吗",  # DuConv's segmented text
    ],
)
def test_a_name_is_mentioned_whatever_dot_joins_it(text: str) -> None:
    assert text_mentions(text, NOLAN)


def test_full_width_forms_and_punctuation_match_their_plain_forms() -> None:
    assert text_mentions("我看过蝙蝠侠:黑暗骑士。", "蝙蝠侠：黑暗骑士")
    assert text_mentions("我喜欢《蝙蝠侠——黑暗骑士》！", "蝙蝠侠：黑暗骑士")
    assert text_mentions("Ｉｎｃｅｐｔｉｏｎ很好看", "Inception")  # full-width Latin letters
    assert text_mentions("Schindler’s List", "Schindler's List")
    assert not text_mentions("诺兰", NOLAN)  # part of a name is not the name
    assert not text_mentions("！？。", "！")  # nothing left to look for


def test_goal_completion_reads_chinese_without_spaces() -> None:
    goal = [["START", "盗梦空间", NOLAN], ["盗梦空间", "导演", NOLAN]]
    knowledge = [["盗梦空间", "导演", NOLAN], ["盗梦空间", "上映时间", "2010年"], [NOLAN, "出生地", "伦敦"]]
    said = ["你好！", "你好。", "《盗梦空间》是2010年上映的。", "嗯嗯", "导演是克里斯托弗・诺兰，他出生在伦敦。"]
    assert goal_completion(goal, knowledge, said) == 2
    assert goal_completion(goal, knowledge, said[::-1]) == 0  # B before A


@pytest.mark.django_db
def test_the_chinese_demo_generates_chinese_goals() -> None:
    campaign = duconv_zh_demo_ensure()
    assert duconv_zh_demo_ensure().pk == campaign.pk  # idempotent
    assert campaign.slug == ZH_DEMO_SLUG and campaign.is_active and ZH_DEMO_LANGUAGE == "zh-hans"
    source = campaign.knowledge_source
    assert source.language == "zh" and source.triples.count() > 300
    assert campaign_problems(campaign) == []
    rng = random.Random(7)
    for _ in range(20):
        goal = goal_generate(source_id=source.pk, rng=rng)
        assert 11 <= len(goal.knowledge) <= 21
        for name in goal.goal[0][1:]:
            assert any("\u4e00" <= c <= "\u9fff" for c in name)
    room = DUCONV.room_create(campaign=campaign)
    assert room.duconv.goal[0][0] == "START" and room.first_speaker == "agent"
    out = io.StringIO()
    call_command("print_links", stdout=out)
    assert f"/join/{ZH_DEMO_SLUG}/?worker=alice" in out.getvalue()


def test_the_chinese_graph_is_well_formed() -> None:
    rows = [line.split("\t") for line in ZH_DEMO_TSV.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert all(len(row) == 3 and all(field.strip() == field and field for field in row) for row in rows)
    assert len({tuple(row) for row in rows}) == len(rows)  # no triple twice


def test_the_duconv_bot_answers_from_chinese_triples() -> None:
    goal = [["START", "盗梦空间", NOLAN], ["盗梦空间", "导演", NOLAN]]
    knowledge = [["盗梦空间", "上映时间", "2010年"], ["盗梦空间", "导演", NOLAN], [NOLAN, "出生地", "伦敦"]]
    bot, history = GoalBot(), []
    replies = []
    for _ in range(4):
        reply = bot.respond({"goal": goal, "knowledge": knowledge, "history": history, "topic": "盗梦空间"})
        replies.append(reply)
        history += [reply["text"], "是吗？"]
    assert [r["text"] for r in replies[:3]] == ["盗梦空间的上映时间是2010年。", f"盗梦空间的导演是{NOLAN}。", f"{NOLAN}的出生地是伦敦。"]
    assert [r.get("knowledge_used") for r in replies] == [[0], [1], [2], None]
    assert replies[3]["text"] == f"很高兴和你聊盗梦空间和{NOLAN}！"
    assert goal_completion(goal, knowledge, history) == 2
    english = bot.respond({"goal": [["START", "Inception", "Titanic"]], "knowledge": [["Inception", "genre", "science fiction"]], "history": []})
    assert english["text"] == "Inception is a science fiction film."


def test_the_baseline_bot_chats_in_the_topics_language() -> None:
    chinese = NoKnowledgeBot().respond({"history": [], "topic": "盗梦空间"})
    assert "盗梦空间" in chinese and not any(c.isascii() and c.isalpha() for c in chinese)
    assert NoKnowledgeBot().respond({"history": [], "topic": "Inception"}).startswith("I don't know much about Inception")


@pytest.mark.django_db
def test_the_chinese_model_chat_demo_runs_the_duconv_agent_on_the_chinese_graph() -> None:
    from collect.tasktypes.modelchat.config import config_errors, config_for
    from collect.tasktypes.modelchat.demo import DUCONV_ZH_DEMO_SLUG, modelchat_duconv_demo_ensure
    from collect.tasktypes.modelchat.duconv import duconv_room_create

    source = duconv_zh_demo_ensure().knowledge_source
    campaign = modelchat_duconv_demo_ensure(source=source, chinese=True)
    assert modelchat_duconv_demo_ensure(source=source, chinese=True) == campaign  # idempotent
    assert campaign.slug == DUCONV_ZH_DEMO_SLUG and campaign.knowledge_source == source
    assert config_for(campaign).duconv is not None and config_errors(campaign) == []
    room, _ = duconv_room_create(campaign=campaign, rng=random.Random(3))
    goal, knowledge = room.duconv.goal, room.duconv.knowledge
    reply = GoalBot().respond({"goal": goal, "knowledge": knowledge, "history": [], "topic": goal[0][1]})
    subject, prop, value = knowledge[reply["knowledge_used"][0]]
    assert reply["text"] == f"{subject}的{prop}是{value}。"
