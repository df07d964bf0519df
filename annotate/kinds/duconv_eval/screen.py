"""The DuConv scoring screen's side of the API: a dialogue with its goal and knowledge (never the
computed goal completion), the answer it sends ({"scores": {...}}) and its score against known ones."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from annotate.kinds.duconv_eval import NAME
from annotate.kinds.duconv_eval.scoring import clean_scores, duconv_rubric, scores_agreement
from annotate.models import Item, Job
from annotate.services.answers import fields_refuse

ANSWER_FIELDS = {
    "scores": serializers.DictField(child=serializers.IntegerField(), required=False,
                                    help_text='DuConv evaluation: {"coherence": 0–3, "goal_completion": 0–2}'),
}


def item_view(item: Item, *, question: str = "") -> dict[str, Any]:
    # The computed goal completion stays off the annotator's screen: it would anchor their score.
    payload = item.payload
    return {
        "id": item.pk,
        "kind": NAME,
        "goal": payload["goal"],
        "knowledge": payload["knowledge"],
        "messages": [{"index": n, "sender": m["sender"], "text": m["text"]} for n, m in enumerate(payload["messages"])],
    }


def answer_clean(item: Item, given: dict[str, Any]) -> dict[str, int]:
    fields_refuse(given, ("scores",), "a DuConv evaluation answer has only `scores`")
    return clean_scores(given.get("scores"))


def score(answer: dict[str, Any], gold: dict[str, Any]) -> float:
    return scores_agreement(answer, gold)


def screen_context(job: Job) -> dict[str, Any]:
    return {"rubric": duconv_rubric()}
