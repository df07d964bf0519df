"""Setting up the DuConv variant of model chat: its settings and their errors (in the config, the
admin and at the join link, where a campaign with no goal to give refuses the worker instead of
opening a stuck room), the built-in DuConv agent, and the demo campaign."""

from __future__ import annotations

import pytest
from django.test import Client

from collect.admin import CampaignForm
from collect.tasktypes.modelchat.bots import GoalBot, KnowledgeBot
from collect.tasktypes.modelchat.config import ConfigError, config_errors, config_for
from collect.models import Assignment, AssignmentStatus, Campaign, Room
from tests.campaign_forms import campaign_form_data
from tests.modelchat.conftest import GOAL

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"models": {"a": 1}, "duconv": {}, "control": 2}, "control must be 0 in a DuConv model chat"),
        ({"models": {"a": 1}, "duconv": {"topic": ["x"]}}, "protocol_config.duconv: unknown DuConv settings: topic"),
        ({"models": {"a": 1}, "duconv": []}, "protocol_config.duconv: protocol_config must be an object"),
        ({"models": {"a": 1}, "duconv": {"goals": [{"goal": [["A", "B"]]}]}}, "protocol_config.duconv: goal 1:"),
    ],
)
def test_bad_duconv_settings_are_refused_with_a_reason(config: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_for(Campaign(protocol_config=config))


def test_the_settings_check_the_graph(dc_campaign, knowledge) -> None:
    assert config_errors(dc_campaign) == [] and config_for(dc_campaign).duconv.goals[0]["goal"] == GOAL
    dc_campaign.protocol_config = {**dc_campaign.protocol_config, "duconv": {"goals": [{"goal": [["START", "Nobody", "Inception"]]}]}}
    assert config_errors(dc_campaign) == [
        "protocol_config.duconv: goal 1: the goal names 'Nobody', which has no triples in the knowledge graph"
    ]
    dc_campaign.protocol_config["duconv"] = {}
    dc_campaign.knowledge_source = knowledge  # articles, no triples
    (error,) = config_errors(dc_campaign)
    assert error.startswith("protocol_config.duconv: the knowledge source has no triples")


def test_the_admin_refuses_a_duconv_model_chat_with_no_triples(knowledge, films) -> None:
    data = campaign_form_data(
        slug="mcd", name="MCD", protocol="model_chat", knowledge_source=knowledge.pk, min_turns=3, turn_limit=5,
        completion_code="X", protocol_config='{"models": {"duconv-agent": 3}, "duconv": {}}',
    )
    from collect.tasktypes.modelchat.bots import builtin_models_ensure

    builtin_models_ensure()
    form = CampaignForm(data=data)
    assert not form.is_valid()
    assert "the knowledge source has no triples" in str(form.errors["protocol_config"])
    form = CampaignForm(data={**data, "knowledge_source": films.pk})
    assert form.is_valid(), form.errors


def test_a_worker_is_told_when_no_goal_can_be_had(dc_campaign, knowledge) -> None:
    dc_campaign.knowledge_source = knowledge  # changed after the admin's check: no triples now
    dc_campaign.protocol_config = {**dc_campaign.protocol_config, "duconv": {}}
    dc_campaign.save()
    response = Client().get("/join/mc-duconv/?worker=zed")
    assert response.status_code == 503
    assert "the knowledge source has no triples" in response.content.decode()
    assert not Room.objects.exists()
    assert Assignment.objects.get(worker__external_id="zed").status == AssignmentStatus.WAITING


def test_a_worker_gets_a_room_with_a_goal_and_a_page_without_it(dc_campaign) -> None:
    client = Client()
    response = client.get("/join/mc-duconv/?worker=yan")
    room = Room.objects.get()
    assert response["Location"] == f"/room/{room.pk}/"
    assert (room.status, room.first_speaker, room.topic, room.persona_id) == ("chatting", "wizard", "", None)
    assert room.duconv.goal == GOAL and room.model_chat.arm == "model" and room.model_chat.model.name == "duconv-agent"
    page = client.get(f"/room/{room.pk}/").content.decode()
    assert "Your partner starts the chat" in page and "Inception" not in page and "Nolan" not in page


def test_the_goal_bot_walks_the_goal_and_the_knowledge_bot_ignores_triples() -> None:
    knowledge = [
        ["Inception", "release year", "2010"],
        ["Inception", "genre", "science fiction"],
        ["Christopher Nolan", "born", "London"],
        ["Inception", "directed by", "Christopher Nolan"],
    ]
    context = {"history": [], "topic": "Inception", "knowledge": knowledge, "goal": GOAL}
    bot = GoalBot()
    said = []
    for expected in (0, 3, 2, 1):
        reply = bot.respond({**context, "history": said})
        assert reply["knowledge_used"] == [expected] and reply["text"] == GoalBot.sentence(knowledge[expected])
        said += [reply["text"], "I see."]
    assert "knowledge_used" not in bot.respond({**context, "history": said})  # all said: a closing line
    assert "knowledge_used" not in bot.respond({"history": ["hi"], "topic": "Jazz", "knowledge": []})  # not DuConv
    assert "knowledge_used" not in KnowledgeBot().respond(context)


def test_the_demo_campaign_runs_the_duconv_agent(films) -> None:
    from collect.tasktypes.modelchat.demo import modelchat_duconv_demo_ensure

    campaign = modelchat_duconv_demo_ensure(source=films)
    assert modelchat_duconv_demo_ensure(source=films) == campaign  # idempotent
    config = config_for(campaign)
    assert config.duconv is not None and config.models == {"duconv-agent": 20, "no-knowledge": 20} and config.control == 0
    assert config_errors(campaign) == []
