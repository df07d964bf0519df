"""The FaithDial screen's side of the API: a wizard response as the annotator sees it (the history,
the knowledge it was grounded on, the response), the answer it sends and its score against a known one.

The answer: {"begin": [BEGIN labels, at least one], "vrm": [VRM labels, at least one], "response":
the rewrite}. Where a BEGIN label is unfaithful (taxonomy.UNFAITHFUL) the rewrite is required and
must differ from the response; otherwise it is optional (a light fix of typos, as FaithDial's
annotators also made) and "" keeps the response. A rewrite is checked as a chat message is
(collect.frames: at most MESSAGE_MAX_CHARS characters, no control characters, no NUL or lone
surrogate, something visible). "I don't know" answers are allowed: FaithDial's wizard admits what
its knowledge does not say. Errors: AnnotationError with codes bad_answer, unknown_label,
rewrite_required, bad_rewrite.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from annotate.agreement import jaccard
from annotate.kinds.faithdial import NAME
from annotate.kinds.faithdial.taxonomy import BEGIN, BEGIN_LABELS, UNFAITHFUL, VRM, VRM_LABELS, translated, unfaithful
from annotate.models import Item, Job
from annotate.services import AnnotationError
from annotate.services.answers import fields_refuse
from collect.errors import ProtocolError
from collect.frames import check_values, require_str

ANSWER_FIELDS = {
    "begin": serializers.ListField(child=serializers.CharField(), required=False,
                                   help_text="FaithDial: the response's BEGIN labels (Entailment, Hallucination, ...)"),
    "vrm": serializers.ListField(child=serializers.CharField(), required=False,
                                 help_text="FaithDial: the response's VRM labels (Disclosure, Question, ...)"),
    "response": serializers.CharField(required=False, allow_blank=True, trim_whitespace=False,
                                      help_text="FaithDial: the response rewritten to be faithful to its knowledge; \"\" keeps it"),
}


def item_view(item: Item, *, question: str = "") -> dict[str, Any]:
    payload = item.payload
    return {
        "id": item.pk,
        "kind": NAME,
        "topic": payload.get("topic", ""),
        "history": list(payload["history"]),
        "knowledge": payload["knowledge"],
        "response": payload["response"],
        "begin": list(BEGIN),
        "vrm": list(VRM),
    }


def answer_clean(item: Item, given: dict[str, Any]) -> dict[str, Any]:
    fields_refuse(given, ("begin", "vrm", "response"), "a FaithDial answer has `begin`, `vrm` and, where unfaithful, `response`")
    begin = clean_labels(given.get("begin"), "begin", BEGIN)
    vrm = clean_labels(given.get("vrm"), "vrm", VRM)
    rewrite = given.get("response", "")
    if not isinstance(rewrite, str):
        raise AnnotationError("bad_rewrite", "`response` must be text")
    original = item.payload["response"]
    if unfaithful(begin):
        if not rewrite.strip():
            raise AnnotationError(
                "rewrite_required",
                f"the response is labeled {', '.join(label for label in begin if label in UNFAITHFUL)}: rewrite it so that "
                "the knowledge supports everything it says (\"I don't know\" is allowed)",
            )
        rewrite = clean_rewrite(rewrite)
        if rewrite == original.strip():
            raise AnnotationError("rewrite_required", "the rewrite is the response unchanged: change what the knowledge does not support")
    elif rewrite.strip():
        rewrite = clean_rewrite(rewrite)
        if rewrite == original.strip():
            rewrite = ""
    return {"begin": begin, "vrm": vrm, "response": rewrite}


def clean_labels(value: Any, field: str, known: tuple[str, ...]) -> list[str]:
    """The labels in the taxonomy's order; AnnotationError for none, an unknown one or one given twice."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or not value:
        raise AnnotationError("bad_answer", f"`{field}` must be a list of at least one label: {', '.join(known)}")
    unknown = [v for v in value if v not in known]
    if unknown:
        raise AnnotationError("unknown_label", f"`{field}`: unknown label {unknown[0]!r}; choose from {', '.join(known)}")
    if len(set(value)) != len(value):
        raise AnnotationError("bad_answer", f"`{field}`: each label may be given once")
    return sorted(value, key=known.index)


def clean_rewrite(text: str) -> str:
    """The rewrite as a chat message must be (collect.frames), stripped."""
    try:
        check_values({"response": text})
        return require_str({"response": text}, "response", max_chars=settings.MESSAGE_MAX_CHARS)
    except ProtocolError as error:
        raise AnnotationError("bad_rewrite", f"the rewrite: {error.message}") from None


def score(answer: dict[str, Any], gold: dict[str, Any]) -> float:
    """Jaccard overlap of the BEGIN labels given and known (the rewrite is not scored)."""
    return jaccard(set(answer["begin"]), set(gold["begin"]))


def screen_context(job: Job) -> dict[str, Any]:
    return {
        "begin_labels": translated(BEGIN_LABELS),
        "vrm_labels": translated(VRM_LABELS),
        "unfaithful": sorted(UNFAITHFUL),
        "max_chars": settings.MESSAGE_MAX_CHARS,
    }
