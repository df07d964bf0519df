"""Every 1–5 scale a worker sees has the same words: the chat rating (WoW, Curiosity) and the
model-chat question's anchors, in English and in Simplified Chinese."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from collect.tasktypes.modelchat.config import DEFAULT_QUESTIONS, Question

LABEL = re.compile(r'data-value="(\d)".*?<span class="rating-label">([^<]*)</span>')


def chat_rating_words() -> dict[str, str]:
    html = render_to_string("collect/_rating_scale.html", {"name": "rating", "legend": "How was it?", "testid": "r"})
    return dict(LABEL.findall(html))


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_chat_rating_and_the_model_chat_question_share_their_words(language: str) -> None:
    question = Question(key=DEFAULT_QUESTIONS[0]["key"], text=DEFAULT_QUESTIONS[0]["text"])
    with translation.override(language):
        shown = chat_rating_words()
        anchors = {point: translation.gettext(words) for point, words in question.anchor_map().items()}
    assert shown == anchors and len(set(shown.values())) == 5
    if language == "en":
        assert shown == {"1": "Not at all", "2": "A little", "3": "Somewhat", "4": "Quite a lot", "5": "Very much"}
    else:
        assert shown["1"] == "完全不" and shown["5"] == "非常"
