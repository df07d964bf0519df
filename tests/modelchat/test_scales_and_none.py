"""Anchor words on the final questions' scales (defaults, settings, refusals) and the onboarding's
"None": refused together with a problem, without using an attempt, the ticks kept."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from collect.tasktypes.modelchat.config import DEFAULT_ANCHORS, ConfigError, config_for
from collect.tasktypes.modelchat.models import ModelChat, ModelChatOnboarding
from collect.models import Campaign
from tests.modelchat.test_views import RIGHT


def questions(*items: dict) -> Campaign:
    return Campaign(protocol="model_chat", protocol_config={"models": {"kb-retrieval": 1}, "questions": list(items)})


def test_a_1_to_5_scale_has_words_on_every_point_by_default() -> None:
    (question,) = config_for(Campaign(protocol="model_chat", protocol_config={"models": {"kb-retrieval": 1}})).questions
    assert question.anchor_map() == {"1": "Not at all", "2": "A little", "3": "Somewhat", "4": "Quite a lot", "5": "Very much"}
    (wide,) = config_for(questions({"key": "fun", "min": 0, "max": 10})).questions
    assert wide.anchor_map() == {"0": DEFAULT_ANCHORS[0], "10": DEFAULT_ANCHORS[-1]}


def test_anchors_are_set_per_question() -> None:
    first, second = config_for(questions(
        {"key": "fun", "anchors": {"1": "Boring", "5": " Great fun "}},
        {"key": "knowledge", "text": "How much did your partner know?", "min": 1, "max": 3,
         "anchors": {"3": "A lot", "1": "Nothing", "2": "Some"}},
    )).questions
    assert first.anchor_map() == {"1": "Boring", "5": "Great fun"}
    assert list(second.anchor_map().items()) == [("1", "Nothing"), ("2", "Some"), ("3", "A lot")]


@pytest.mark.parametrize(
    ("anchors", "message"),
    [
        ({"6": "Too far"}, r"questions\[0\]\.anchors: '6' is not a point of the 1–5 scale"),
        ({"one": "Low"}, "'one' is not a point"),
        ({"1": ""}, r"anchors\['1'\] must be words of 1–40 characters"),
        ({"1": "x" * 41}, "1–40 characters"),
        ({"1": 3}, "must be words"),
        (["Not at all", "Very much"], "anchors must map points of the scale to words"),
        ({}, "anchors must map points"),
    ],
)
def test_bad_anchors_are_refused_with_the_fault_named(anchors, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_for(questions({"key": "fun", "anchors": anchors}))


@pytest.mark.django_db
def test_none_with_a_problem_is_refused_without_using_an_attempt(mc_campaign) -> None:
    client = Client()
    client.get("/join/mc-test/?worker=gus")
    both = {**RIGHT, "turn-1": ["none", "off_topic"]}
    response = client.post("/join/mc-test/onboarding/", both)
    html = response.content.decode()
    assert response.status_code == 400 and 'data-testid="onboarding-refused"' in html
    assert "did not use an attempt" in html and "Attempts left" not in html
    assert not ModelChatOnboarding.objects.filter(attempts__gt=0).exists() and not ModelChat.objects.exists()
    # The ticks come back as they were sent, the message at fault marked.
    turn = re.search(r'data-index="1">(.*?)</li>', html, re.S).group(1)
    assert re.search(r'value="off_topic"[^>]*checked', turn) and re.search(r'value="none"[^>]*checked', turn)
    assert re.search(r'message-wrong"\s+data-testid="sample-turn" data-index="1"', html)
    assert not re.search(r'message-wrong"\s+data-testid="sample-turn" data-index="3"', html)
    unknown = client.post("/join/mc-test/onboarding/", {**RIGHT, "turn-3": ["boring"]})
    assert unknown.status_code == 400 and not ModelChatOnboarding.objects.filter(attempts__gt=0).exists()
    # Right labels then pass on the first attempt.
    assert client.post("/join/mc-test/onboarding/", RIGHT).status_code == 302
    assert ModelChatOnboarding.objects.get().attempts == 1
