"""An item as its annotator sees it: never its role, its known answer or anyone's votes."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from annotate.models import DIALOG_ACTS, Item, JobKind, PairwiseQuestion


def item_for_annotator(item: Item, kind: str, *, question: str = "") -> dict[str, Any]:
    payload = item.payload
    if kind == JobKind.PAIRWISE:
        return _pair_for_annotator(item, question)
    if kind == JobKind.RELEVANCE:
        turns = payload["turns"]
        # The context ends on the user's turn; speakers alternate backwards from there.
        speakers = ["user" if (len(turns) - 1 - n) % 2 == 0 else "assistant" for n in range(len(turns))]
        articles: dict[str, list[dict[str, Any]]] = {}
        for n, candidate in enumerate(payload["candidates"]):
            articles.setdefault(candidate["article"], []).append({"id": n, "text": candidate["sentence"]})
        return {
            "id": item.pk,
            "kind": kind,
            "topic": payload["topic"],
            "turns": [{"speaker": s, "text": t} for s, t in zip(speakers, turns)],
            "articles": [{"title": title, "sentences": sentences} for title, sentences in articles.items()],
        }
    if kind == JobKind.DUCONV_EVAL:
        # The computed goal completion stays off the annotator's screen: it would anchor their score.
        return {
            "id": item.pk,
            "kind": kind,
            "goal": payload["goal"],
            "knowledge": payload["knowledge"],
            "messages": [{"index": n, "sender": m["sender"], "text": m["text"]} for n, m in enumerate(payload["messages"])],
        }
    return {
        "id": item.pk,
        "kind": kind,
        "topic": payload["topic"],
        "aspects": payload.get("aspects", []),
        "messages": [{"index": n, "sender": m["sender"], "text": m["text"]} for n, m in enumerate(payload["messages"])],
        "acts": list(DIALOG_ACTS),
    }


def _pair_for_annotator(item: Item, question: str) -> dict[str, Any]:
    """Left and right conversation, never the model names; the judged speaker is "Speaker 1" on
    the left and "Speaker 2" on the right, their partners plain "Partner"."""
    from annotate.services.pairs import ACUTE_QUESTIONS, REASON_PROMPT

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
        "kind": JobKind.PAIRWISE,
        "question": gettext(wording["question"]),
        "reason_prompt": gettext(REASON_PROMPT),
        "conversations": conversations,
    }
