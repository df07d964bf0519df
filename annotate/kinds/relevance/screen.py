"""The relevance screen's side of the API: a context and its candidate sentences as the annotator
sees them (grouped by article, each with its id), the answer it sends ({"selected": ids}) and its
score against a known one."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from annotate.agreement import jaccard
from annotate.kinds.relevance import NAME
from annotate.models import Item
from annotate.services import AnnotationError
from annotate.services.answers import fields_refuse

ANSWER_FIELDS = {
    "selected": serializers.ListField(child=serializers.IntegerField(), required=False, allow_empty=True,
                                      help_text="relevance: ids of every sentence that could be used; [] for none"),
}


def item_view(item: Item, *, question: str = "") -> dict[str, Any]:
    payload = item.payload
    turns = payload["turns"]
    # The context ends on the user's turn; speakers alternate backwards from there.
    speakers = ["user" if (len(turns) - 1 - n) % 2 == 0 else "assistant" for n in range(len(turns))]
    articles: dict[str, list[dict[str, Any]]] = {}
    for n, candidate in enumerate(payload["candidates"]):
        articles.setdefault(candidate["article"], []).append({"id": n, "text": candidate["sentence"]})
    return {
        "id": item.pk,
        "kind": NAME,
        "topic": payload["topic"],
        "turns": [{"speaker": s, "text": t} for s, t in zip(speakers, turns)],
        "articles": [{"title": title, "sentences": sentences} for title, sentences in articles.items()],
    }


def answer_clean(item: Item, given: dict[str, Any]) -> dict[str, list[int]]:
    fields_refuse(given, ("selected",), "a relevance answer has only `selected` (sentence ids)")
    return {"selected": clean_selected(item, given.get("selected"))}


def clean_selected(item: Item, selected: Any) -> list[int]:
    if not isinstance(selected, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in selected):
        raise AnnotationError("bad_answer", "`selected` must be a list of sentence ids (an empty list: none is relevant)")
    count = len(item.payload["candidates"])
    unknown = sorted({i for i in selected if not 0 <= i < count})
    if unknown:
        raise AnnotationError(
            "unknown_sentence", f"sentence id(s) {', '.join(map(str, unknown))} not in item {item.pk} (ids 0–{count - 1})"
        )
    if len(set(selected)) != len(selected):
        raise AnnotationError("duplicate_sentence", "each sentence id may be selected once")
    return sorted(selected)


def score(answer: dict[str, Any], gold: dict[str, Any]) -> float:
    """Jaccard overlap of the sentences selected and known; 1.0 when both say none."""
    return jaccard(set(answer["selected"]), set(gold["selected"]))
