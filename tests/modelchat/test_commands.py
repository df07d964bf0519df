"""register_model from the command line, and the admin refusing a bad model-chat config."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from collect.admin import CampaignForm
from collect.tasktypes.modelchat.config import ConfigError, config_for
from collect.tasktypes.modelchat.models import EvalModel
from collect.models import Campaign
from tests.campaign_forms import campaign_form_data

pytestmark = pytest.mark.django_db


def test_it_registers_and_updates_an_http_model() -> None:
    call_command("register_model", "owner-bot", "--url", "http://127.0.0.1:8201/respond", "--timeout", "3", "--retries", "2")
    call_command("register_model", "owner-bot", "--url", "http://127.0.0.1:8202/respond", "--concurrency", "8")
    model = EvalModel.objects.get(name="owner-bot")
    assert (model.kind, model.endpoint_url, model.max_concurrency, model.retries) == ("http", "http://127.0.0.1:8202/respond", 8, 1)


def test_it_registers_the_builtins_once() -> None:
    call_command("register_model", "--builtins")
    call_command("register_model", "--builtins")
    assert sorted(EvalModel.objects.values_list("name", flat=True)) == ["duconv-agent", "kb-retrieval", "no-knowledge", "tfidf-reply"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["m1"], "give NAME and one of"),
        (["m1", "--url", "not a url"], "endpoint_url"),
        (["m1", "--python", "x.Y", "--timeout", "0"], "timeout"),
        (["m1", "--python", "x.Y", "--options", "{bad"], "not valid JSON"),
        (["m1", "--python", "x.Y", "--options", "[1]"], "options"),
        (["Not A Slug", "--python", "x.Y"], "name"),
    ],
)
def test_it_refuses_bad_registrations(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("register_model", *args)
    assert not EvalModel.objects.exists()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"models": {"kb-retrieval": -1}}, "at least 0"),
        ({"models": {}}, "at least one conversation"),
        ({"models": {"a": 1}, "problems": ["none"]}, "must not hold 'none'"),
        ({"models": {"a": 1}, "questions": [{"key": "fun", "min": 5, "max": 1}]}, "min must be below"),
        ({"models": {"a": 1}, "questions": []}, "non-empty"),
    ],
)
def test_bad_configs_are_refused_with_a_reason(config: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_for(Campaign(protocol_config=config))


def test_the_admin_refuses_a_bad_model_chat_config(knowledge) -> None:
    form = CampaignForm(
        data=campaign_form_data(
            slug="mc", name="MC", protocol="model_chat", knowledge_source=knowledge.pk, min_turns=3, turn_limit=5,
            completion_code="X", protocol_config='{"models": {"kb-retrieval": "many"}}',
        )
    )
    assert not form.is_valid()
    assert "whole number" in str(form.errors["protocol_config"])
    form.data = {**form.data, "protocol_config": '{"models": {"nobody": 3}}'}
    form.full_clean()
    assert form.errors["protocol_config"] == ["protocol_config.models: no active registered model named 'nobody'"]


def test_the_demo_campaign_runs_the_built_in_models(knowledge) -> None:
    from collect.tasktypes.modelchat.demo import modelchat_demo_ensure
    from collect.tasktypes.modelchat.selectors import modelchat_settings

    campaign = modelchat_demo_ensure(source=knowledge)
    assert modelchat_demo_ensure(source=knowledge) == campaign  # idempotent
    settings = modelchat_settings(campaign=campaign)
    assert settings.models == {"kb-retrieval": 20, "tfidf-reply": 20, "no-knowledge": 20} and settings.control == 10
    assert (campaign.min_turns, campaign.max_turns) == (3, 5) and campaign.personas.count() == 10
    assert [q.key for q in settings.questions] == ["engagingness"]


@pytest.mark.django_db
def test_register_model_sets_the_token_timeout_of_a_streamed_reply() -> None:
    import io

    call_command("register_model", "streamy", "--url", "http://127.0.0.1:9/respond", "--token-timeout", "4", stdout=io.StringIO())
    assert EvalModel.objects.get(name="streamy").token_timeout_seconds == 4.0
    with pytest.raises(CommandError, match="token_timeout_seconds"):
        call_command("register_model", "streamy", "--url", "http://127.0.0.1:9/respond", "--token-timeout", "0", stdout=io.StringIO())
