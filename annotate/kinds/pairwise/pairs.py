"""Pairwise items (ACUTE-Eval): two complete conversations, each with a speaker of interest (the
model under evaluation), and one question about those two speakers.

A conversation is {"id", "model", "speaker", "dialog": [{"speaker", "text"}], "topic"?, "seen"?,
"source"?}: `speaker` names the dialog speaker being judged. Pairs are built for every two models:
each model's conversations are put in a fixed pseudo-random order and zipped with the other
model's, so every conversation is used about equally often. Which conversation the annotator sees
on the left is drawn per item (repeatably) and recorded in the payload as `left`.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any, Iterable

from django.utils.translation import gettext_noop

from annotate.kinds.pairwise.questions import PairwiseQuestion
from annotate.models import ItemRole, Job
from annotate.services import AnnotationError
from annotate.services.jobs import ItemSpec
from collect.exporters import stable_fraction
from collect.tasktypes.modelchat.selectors import modelchat_conversations

# The ACUTE-Eval wordings (Li, Weston and Roller, 2019): the question and how each answer reads.
ACUTE_QUESTIONS: dict[str, dict[str, str]] = {
    PairwiseQuestion.ENGAGING: {
        "question": gettext_noop("Who would you prefer to talk to for a long conversation?"),
        "option": gettext_noop("I would prefer to talk to {speaker}"),
    },
    PairwiseQuestion.INTERESTING: {
        "question": gettext_noop(
            "If you had to say one of these speakers is interesting and one is boring, who would you say is more interesting?"
        ),
        "option": gettext_noop("{speaker} is more interesting"),
    },
    PairwiseQuestion.HUMANLIKE: {
        "question": gettext_noop("Which speaker sounds more human?"),
        "option": gettext_noop("{speaker} sounds more human"),
    },
    PairwiseQuestion.KNOWLEDGEABLE: {
        "question": gettext_noop(
            "If you had to say that one speaker is more knowledgeable and one is more ignorant, who is more knowledgeable?"
        ),
        "option": gettext_noop("{speaker} is more knowledgeable"),
    },
}
REASON_PROMPT = gettext_noop("Please provide a brief justification for your choice (a few words or a sentence)")  # ACUTE-Eval's wording
MIN_REASON_CHARS = 3
MAX_REASON_CHARS = 500
MAX_TURNS = 200
MAX_TEXT_CHARS = 5000
SIDES = ("a", "b")


def conversation_clean(raw: Any, where: str) -> dict[str, Any]:
    """A validated copy of one conversation, or AnnotationError naming `where`."""

    def fail(message: str) -> None:
        raise AnnotationError("bad_conversation", f"{where}: {message}")

    if not isinstance(raw, dict):
        fail("a conversation must be a JSON object")
    for key in ("id", "model"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            fail(f"{key} must be a non-empty string")
    dialog = raw.get("dialog")
    if not isinstance(dialog, list) or not dialog or len(dialog) > MAX_TURNS:
        fail(f"dialog must be a list of 1–{MAX_TURNS} turns")
    for n, turn in enumerate(dialog):
        if not isinstance(turn, dict) or not isinstance(turn.get("speaker"), str) or not isinstance(turn.get("text"), str):
            fail(f"turn {n} must be an object with speaker and text strings")
        if len(turn["text"]) > MAX_TEXT_CHARS:
            fail(f"turn {n} is longer than {MAX_TEXT_CHARS} characters")
    speaker = raw.get("speaker", "model")
    if not isinstance(speaker, str) or all(turn["speaker"] != speaker for turn in dialog):
        fail(f"speaker {speaker!r} (the speaker being judged) says nothing in the dialog")
    topic = raw.get("topic", "")
    if not isinstance(topic, str):
        fail("topic must be a string")
    seen = raw.get("seen")
    if seen is not None and not isinstance(seen, bool):
        fail("seen must be true, false or absent")
    return {
        "id": raw["id"],
        "model": raw["model"],
        "speaker": speaker,
        "topic": topic,
        "seen": seen,
        "dialog": [{"speaker": turn["speaker"], "text": turn["text"]} for turn in dialog],
        **({"source": raw["source"]} if isinstance(raw.get("source"), dict) else {}),
    }


def pair_payload(job: Job, key: str, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    left = "a" if stable_fraction(job.pk, "pair-left", key) < 0.5 else "b"
    return {"conversations": {"a": a, "b": b}, "left": left}


def pair_key(a: dict[str, Any], b: dict[str, Any]) -> str:
    return f"{a['id']}|{b['id']}"


def pair_specs(job: Job, conversations: Iterable[dict[str, Any]], *, per_model_pair: int | None = None) -> list[ItemSpec]:
    """Task items for every two models. `a` is the model whose name sorts first. A conversation the
    job already pairs with some model is not paired with that model again (a top-up after more
    conversations were collected pairs only the new ones)."""
    paired = {
        (payload["conversations"][side]["id"], payload["conversations"][other]["model"])
        for payload in job.items.filter(role=ItemRole.TASK).values_list("payload", flat=True)
        for side, other in (("a", "b"), ("b", "a"))
    }
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen_ids: set[str] = set()
    for conversation in conversations:
        if conversation["id"] in seen_ids:
            raise AnnotationError("duplicate_conversation", f"conversation id {conversation['id']!r} appears twice")
        seen_ids.add(conversation["id"])
        by_model[conversation["model"]].append(conversation)
    if len(by_model) < 2:
        raise AnnotationError("too_few_models", "pairs need conversations of at least two models")
    for items in by_model.values():
        items.sort(key=lambda c: stable_fraction(job.pk, "pair-order", c["id"]))
    specs = []
    for model_a, model_b in itertools.combinations(sorted(by_model), 2):
        free_a = [c for c in by_model[model_a] if (c["id"], model_b) not in paired]
        free_b = [c for c in by_model[model_b] if (c["id"], model_a) not in paired]
        zipped = list(zip(free_a, free_b))
        for a, b in zipped[:per_model_pair]:
            key = pair_key(a, b)
            specs.append(ItemSpec(key=key, payload=pair_payload(job, key, a, b)))
    return specs


def check_spec(job: Job, raw: Any, where: str, role: str) -> ItemSpec:
    """A known-answer pair (gold or qualification): {"a": conversation, "b": conversation, "winner"}."""
    if not isinstance(raw, dict) or raw.get("winner") not in SIDES:
        raise AnnotationError("bad_check", f"{where}: a check pair is {{\"a\", \"b\", \"winner\": \"a\"|\"b\"}}")
    a = conversation_clean(raw.get("a"), f"{where}, a")
    b = conversation_clean(raw.get("b"), f"{where}, b")
    key = f"{role}:{pair_key(a, b)}"
    return ItemSpec(key=key, role=role, payload=pair_payload(job, key, a, b), gold={"winner": raw["winner"]})


def pair_answer_clean(item_payload: dict[str, Any], choice: Any, reason: Any) -> dict[str, str]:
    """The stored answer: which side was chosen on screen, which conversation that is, and why."""
    if choice not in ("left", "right"):
        raise AnnotationError("bad_answer", "a pairwise answer has `choice`: \"left\" or \"right\"")
    if not isinstance(reason, str) or not MIN_REASON_CHARS <= len(reason.strip()) <= MAX_REASON_CHARS:
        raise AnnotationError(
            "bad_reason", f"give a short reason for your choice ({MIN_REASON_CHARS}–{MAX_REASON_CHARS} characters)"
        )
    left = item_payload["left"]
    right = "b" if left == "a" else "a"
    return {"choice": choice, "winner": left if choice == "left" else right, "reason": reason.strip()}


def campaign_conversations(campaigns: list[str]) -> list[dict[str, Any]]:
    """The complete conversations of model-chat campaigns, in the pair payload's shape; the human
    control arm takes part as one more "model" (its name is the arm's)."""
    return [
        {
            "id": record.room_id,
            "model": record.model,
            "speaker": "model",
            "topic": record.topic,
            "seen": record.seen,
            "dialog": [{"speaker": turn.speaker, "text": turn.text} for turn in record.turns],
            "source": {"campaign": record.campaign, "room": record.room_id},
        }
        for record in modelchat_conversations(campaigns=campaigns)
        if any(turn.speaker == "model" for turn in record.turns)
    ]
