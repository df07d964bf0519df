"""The DuConv competition's human evaluation as an annotation kind (`duconv_eval`): one item per
dialogue, scored on two ordinal scales with the rubric below, next to the goal completion computed
from the marked triples and topic mentions (collect.tasktypes.duconv.completion). Agreement: quadratic-weighted
Cohen's kappa averaged over annotator pairs on the items they share (scikit-learn, BSD)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext, gettext_noop

from annotate.models import Item, ItemRole
from annotate.services import AnnotationError
from collect.models import Room
from collect.tasktypes.duconv.completion import goal_completion
from collect.tasktypes.duconv.models import DuConvSession

SCALES = {"coherence": 3, "goal_completion": 2}  # name → highest score (lowest is 0)
RUBRIC = {
    "coherence": {
        3: gettext_noop("No response is irrelevant or contradicts what was said before."),
        2: gettext_noop("One response is irrelevant or contradictory."),
        1: gettext_noop("Two responses are irrelevant or contradictory."),
        0: gettext_noop("More than two responses are irrelevant or contradictory."),
    },
    "goal_completion": {
        2: gettext_noop("Both topics come up in the goal's order (A, then B), and at least 2 distinct knowledge triples are used."),
        1: gettext_noop("Both topics come up in order, but fewer than 2 distinct triples are used."),
        0: gettext_noop("The topics do not both come up in the goal's order."),
    },
}


def duconv_payload(room: Room) -> dict[str, Any] | None:
    """The item shown to annotators: goal, knowledge, the conversation, and the automatic score."""
    session = DuConvSession.objects.filter(room=room).first()
    messages = list(room.messages.order_by("seq"))
    if session is None or not messages or session.sample_keys is not None:  # a sample is not a whole dialogue
        return None
    texts = [m.text for m in messages]
    return {
        "goal": session.goal,
        "knowledge": session.knowledge,
        "messages": [{"sender": m.role, "text": m.text, "knowledge_used": m.knowledge_used} for m in messages],
        "auto_goal_completion": goal_completion(session.goal, session.knowledge, texts, [m.knowledge_used for m in messages]),
    }


def clean_scores(scores: Any) -> dict[str, int]:
    if not isinstance(scores, dict) or set(scores) != set(SCALES):
        raise AnnotationError("bad_answer", "`scores` must be {\"coherence\": 0–3, \"goal_completion\": 0–2}")
    for name, top in SCALES.items():
        value = scores[name]
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
            raise AnnotationError("bad_score", f"`{name}` must be a whole number from 0 to {top}, not {value!r}")
    return {name: scores[name] for name in SCALES}


def scores_agreement(answer: dict[str, Any], gold: dict[str, Any]) -> float:
    """1 − mean normalised distance to the known scores (1.0 = the same scores)."""
    return 1 - sum(abs(answer[n] - gold[n]) / top for n, top in SCALES.items()) / len(SCALES)


def weighted_kappa(ratings: Iterable[tuple[Any, Any, int]], *, top: int) -> float | None:
    """Mean quadratic-weighted kappa over annotator pairs, from (annotator, item, score) triples;
    None when no two annotators share an item (or every shared score is one value)."""
    # Imported here: scikit-learn takes seconds to import, and only reports need it.
    from sklearn.metrics import cohen_kappa_score

    by_coder: dict[Any, dict[Any, int]] = defaultdict(dict)
    for coder, item, score in ratings:
        by_coder[coder][item] = score
    kappas = []
    for a, b in itertools.combinations(sorted(by_coder, key=str), 2):
        shared = sorted(set(by_coder[a]) & set(by_coder[b]), key=str)
        if len(shared) < 2:
            continue
        x = [by_coder[a][i] for i in shared]
        y = [by_coder[b][i] for i in shared]
        if len(set(x) | set(y)) < 2:
            continue
        kappas.append(float(cohen_kappa_score(x, y, weights="quadratic", labels=list(range(top + 1)))))
    return sum(kappas) / len(kappas) if kappas else None


def duconv_decisions(answers: list[dict[str, Any]]) -> dict[Any, dict[Any, int]]:
    """(item, scale) → {annotator: score}, for agreement with the majority."""
    decisions: dict[Any, dict[Any, int]] = defaultdict(dict)
    for answer in answers:
        for name in SCALES:
            decisions[(answer["item_id"], name)][answer["worker_id"]] = answer["answer"][name]
    return decisions


def duconv_report_section(job: Any, answers: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean scores, weighted kappa per scale, and the automatic goal completion beside the human one."""
    kappas = {
        name: weighted_kappa(((a["worker_id"], a["item_id"], a["answer"][name]) for a in answers), top=top)
        for name, top in SCALES.items()
    }
    known = [k for k in kappas.values() if k is not None]
    human: dict[int, list[int]] = defaultdict(list)
    for answer in answers:
        human[answer["item_id"]].append(answer["answer"]["goal_completion"])
    autos = dict(Item.objects.filter(job=job, role=ItemRole.TASK).values_list("pk", "payload__auto_goal_completion"))
    rows = [
        {"item": item, "auto": autos.get(item), "human_mean": sum(scores) / len(scores)}
        for item, scores in sorted(human.items())
    ]
    return {
        # The mean covers only the scales whose kappa is defined; "scales" names them, so a figure
        # from one scale is never read as both scales' mean.
        "agreement": {"measure": "weighted_kappa", "value": sum(known) / len(known) if known else None, "units": len(answers),
                      "scales": [name for name, kappa in kappas.items() if kappa is not None],
                      "undefined_scales": [name for name, kappa in kappas.items() if kappa is None],
                      "covers": _kappa_cover(kappas),
                      "unit": "a session scored by its annotators on each scale (kappa per scale, averaged over the scales where it is defined); units counts the answers"},
        "duconv": {
            "kappa": kappas,
            "means": {n: (sum(a["answer"][n] for a in answers) / len(answers) if answers else None) for n in SCALES},
            "goal_completion": rows,
            "auto_matches_human": sum(1 for r in rows if r["auto"] == round(r["human_mean"])),
            "rubric": {n: [(score, text) for score, text in RUBRIC[n].items()] for n in SCALES},
        },
    }


def _kappa_cover(kappas: dict[str, float | None]) -> str:
    """What the mean weighted kappa is a mean of, in words: "mean of coherence and goal completion",
    "goal completion only; coherence undefined", or "undefined on every scale"."""
    defined = [name.replace("_", " ") for name, kappa in kappas.items() if kappa is not None]
    undefined = [name.replace("_", " ") for name, kappa in kappas.items() if kappa is None]
    if not defined:
        return "undefined on every scale"
    if not undefined:
        return "mean of " + " and ".join(defined)
    return " and ".join(defined) + " only; " + " and ".join(undefined) + " undefined"


def duconv_rubric() -> list[dict[str, Any]]:
    """The rubric as the scoring screen lists it: each scale with its scores, highest first."""
    titles = {"coherence": gettext("Coherence"), "goal_completion": gettext("Goal completion")}
    return [
        {"name": n, "title": titles[n], "options": [{"score": s, "text": gettext(RUBRIC[n][s])} for s in range(top, -1, -1)]}
        for n, top in SCALES.items()
    ]
