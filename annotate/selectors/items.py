"""An item as its annotator sees it: never its role, its known answer or anyone's votes."""

from __future__ import annotations

from typing import Any

from annotate.models import DIALOG_ACTS, Item, JobKind


def item_for_annotator(item: Item, kind: str) -> dict[str, Any]:
    payload = item.payload
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
    return {
        "id": item.pk,
        "kind": kind,
        "topic": payload["topic"],
        "aspects": payload.get("aspects", []),
        "messages": [{"index": n, "sender": m["sender"], "text": m["text"]} for n, m in enumerate(payload["messages"])],
        "acts": list(DIALOG_ACTS),
    }
