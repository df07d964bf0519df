"""The dialog-act screen's side of the API: a dialogue as the annotator sees it, the answer it sends
({"acts": one list per message}, or a report of the dialogue) and its score against a known one."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from annotate.agreement import jaccard
from annotate.kinds.dialog_acts import NAME
from annotate.kinds.dialog_acts.acts import DIALOG_ACTS, act_guide_translated
from annotate.models import Item, Job
from annotate.services import AnnotationError
from annotate.services.answers import MAX_REASON_CHARS, fields_refuse

_ACTS = frozenset(DIALOG_ACTS)
_ORDER = {act: n for n, act in enumerate(DIALOG_ACTS)}
# Keyboard shortcuts of the screen: one keyboard row per act family.
ACT_KEYS = dict(zip(DIALOG_ACTS, "1234qweasdzxcvbn"))

ANSWER_FIELDS = {
    "acts": serializers.ListField(child=serializers.ListField(child=serializers.CharField(), allow_empty=True),
                                  required=False, help_text="dialog acts: one list of acts per message, in order"),
    "report_reason": serializers.CharField(required=False, allow_blank=True, max_length=MAX_REASON_CHARS,
                                           help_text="dialog acts: report the dialog as broken, and why"),
}


def item_view(item: Item, *, question: str = "") -> dict[str, Any]:
    payload = item.payload
    return {
        "id": item.pk,
        "kind": NAME,
        "topic": payload["topic"],
        "aspects": payload.get("aspects", []),
        "messages": [{"index": n, "sender": m["sender"], "text": m["text"]} for n, m in enumerate(payload["messages"])],
        "acts": list(DIALOG_ACTS),
    }


def answer_clean(item: Item, given: dict[str, Any]) -> dict[str, Any]:
    fields_refuse(given, ("acts", "report_reason"), "a dialog-act answer has `acts` (one list per message) and, to report the dialog, `report_reason`")
    reported = bool(str(given.get("report_reason", "")).strip())
    return {"acts": clean_acts(item, given.get("acts"), reported=reported)}


def clean_acts(item: Item, acts: Any, *, reported: bool) -> list[list[str]]:
    count = len(item.payload["messages"])
    if acts is None and reported:
        return [[] for _ in range(count)]
    if not isinstance(acts, list) or not all(isinstance(m, list) for m in acts):
        raise AnnotationError("bad_answer", "`acts` must be a list with one list of dialog acts per message")
    if len(acts) != count:
        raise AnnotationError("bad_answer", f"`acts` must have one list per message: {count}, not {len(acts)}")
    for index, message_acts in enumerate(acts):
        unknown = [a for a in message_acts if a not in _ACTS]
        if unknown:
            raise AnnotationError(
                "unknown_act", f"message {index}: unknown dialog act {unknown[0]!r}; choose from {', '.join(DIALOG_ACTS)}"
            )
        if len(set(message_acts)) != len(message_acts):
            raise AnnotationError("bad_answer", f"message {index}: each dialog act may be given once")
    return [sorted(message_acts, key=_ORDER.__getitem__) for message_acts in acts]


def score(answer: dict[str, Any], gold: dict[str, Any]) -> float:
    """Jaccard overlap of the (message index, act) pairs given and known."""
    return jaccard(_units(answer), _units(gold))


def _units(answer: dict[str, Any]) -> set[tuple[int, str]]:
    return {(index, act) for index, acts in enumerate(answer["acts"]) for act in acts}


def screen_context(job: Job) -> dict[str, Any]:
    """The palette (each act's guide, key and family) and the report's length limit."""
    return {
        "act_keys": [(guide, ACT_KEYS[guide.act], guide.act.split("_")[0]) for guide in act_guide_translated()],
        "report_reason_max_chars": MAX_REASON_CHARS,
    }
