"""The pairwise screen's side of the API: a pair as the judge sees it (never the models' names), the
answer it sends ({"choice": "left"|"right", "reason"}) and its score against a known winner."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from annotate.agreement import jaccard
from annotate.kinds.pairwise import NAME
from annotate.kinds.pairwise.pairs import ACUTE_QUESTIONS, MAX_REASON_CHARS, MIN_REASON_CHARS, REASON_PROMPT, pair_answer_clean
from annotate.kinds.pairwise.questions import PairwiseQuestion
from annotate.models import Item, Job
from annotate.services.answers import fields_refuse

ANSWER_FIELDS = {
    "choice": serializers.ChoiceField(["left", "right"], required=False,
                                      help_text="pairwise: the conversation whose highlighted speaker you chose"),
    "reason": serializers.CharField(required=False, allow_blank=True, max_length=MAX_REASON_CHARS,
                                    help_text="pairwise: why (required, a few words or a sentence)"),
}


def item_view(item: Item, *, question: str = "") -> dict[str, Any]:
    """Left and right conversation, never the model names; the judged speaker is "Speaker 1" on
    the left and "Speaker 2" on the right, their partners plain "Partner"."""
    left = item.payload["left"]
    sides = {"left": left, "right": "b" if left == "a" else "a"}
    # A job saved in the admin without a question asks the default one.
    wording = ACUTE_QUESTIONS.get(question) or ACUTE_QUESTIONS[PairwiseQuestion.ENGAGING]
    conversations = []
    for n, (side, key) in enumerate(sides.items(), start=1):
        conversation = item.payload["conversations"][key]
        name = gettext("Speaker %(number)s") % {"number": n}
        conversations.append({
            "side": side,
            "speaker": name,
            "option": gettext(wording["option"]).format(speaker=name),
            "topic": conversation.get("topic", ""),
            "turns": [
                {
                    "of_interest": turn["speaker"] == conversation["speaker"],
                    "speaker": name if turn["speaker"] == conversation["speaker"] else gettext("Partner"),
                    "text": turn["text"],
                }
                for turn in conversation["dialog"]
            ],
        })
    return {
        "id": item.pk,
        "kind": NAME,
        "question": gettext(wording["question"]),
        "reason_prompt": gettext(REASON_PROMPT),
        "conversations": conversations,
    }


def answer_clean(item: Item, given: dict[str, Any]) -> dict[str, str]:
    fields_refuse(given, ("choice", "reason"), "a pairwise answer has `choice` (left or right) and `reason` only")
    return pair_answer_clean(item.payload, given.get("choice"), given.get("reason"))


def score(answer: dict[str, Any], gold: dict[str, Any]) -> float:
    """1.0 when the known winner was chosen, else 0.0."""
    return jaccard({answer["winner"]}, {gold["winner"]})


def screen_context(job: Job) -> dict[str, Any]:
    return {"pair_reason_max_chars": MAX_REASON_CHARS, "pair_reason_min_chars": MIN_REASON_CHARS}
