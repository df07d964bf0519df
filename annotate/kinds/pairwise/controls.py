"""Control pairs for pairwise (ACUTE-Eval) jobs: attention checks whose answer is known, mixed into
a judge's queue as gold items (served at the job's `gold_rate`).

Each pair sets a known-better conversation against a known-worse one, as ACUTE-Eval's onboarding
does (a weak baseline against a human–human conversation): the better side is one of the fluent,
knowledgeable conversations below; the worse side is another of them with the judged speaker's
turns replaced by evasive one-liners, so it is worse on all four ACUTE questions. A judge whose
mean score on these is below the job's `review_min_gold_score` has every answer left out of the
results (annotate.kinds.pairwise.selectors.pair_check_failures).
"""

from __future__ import annotations

import itertools
from typing import Any

from annotate.kinds.pairwise import NAME
from annotate.models import ItemRole, Job
from annotate.services import AnnotationError
from annotate.services.jobs import items_add
from annotate.kinds.pairwise.pairs import check_spec

CONTROL_MODEL = "control"
CONTROL_GOLD_RATE = 0.1  # the default share of served items that are control pairs
EVASIVE = ("I don't know.", "Ok.", "What?")
# (topic, turns alternating partner, speaker): written for these checks.
BETTER: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Jazz", (
        "I've started listening to jazz lately. Where did it come from?",
        "It grew out of New Orleans around the start of the twentieth century, mixing blues, ragtime and brass band music. Who have you been listening to?",
        "Mostly Miles Davis, Kind of Blue.",
        "Great choice! That album is built on modes rather than chord changes, which is why it feels so open and calm. Have you tried any Coltrane?",
        "Not yet, where should I start?",
        "A Love Supreme is a wonderful place to start. It is intense, but you can hear him building one idea across the whole record.",
    )),
    ("Tea", (
        "Do you drink much tea?",
        "Every morning! I love a strong black tea. Green and black tea actually come from the same plant; the difference is how the leaves are processed.",
        "Really? I thought they were different plants.",
        "Lots of people think so. Black tea leaves are left to oxidise, which darkens them, while green tea is heated quickly to stop that. What do you usually drink?",
        "Mostly coffee, to be honest.",
        "Fair enough! If you like a bit of bitterness, a smoky lapsang souchong might surprise you.",
    )),
    ("Mount Everest", (
        "Have you ever wanted to climb a big mountain?",
        "I'd love to see the Himalayas one day, though maybe not from the top of Everest. It is almost 8,850 metres high, so most climbers need bottled oxygen.",
        "That sounds terrifying.",
        "It is serious: above about 8,000 metres is called the death zone, because the body cannot adapt to so little oxygen. Do you hike at all?",
        "Only small hills near my town.",
        "That is how many climbers started! Hill walking builds exactly the stamina you need for longer treks.",
    )),
    ("Dogs", (
        "I'm thinking of getting a dog.",
        "How exciting! Dogs were the first animals people domesticated, thousands of years before farming. Do you have a breed in mind?",
        "Maybe a border collie.",
        "They are brilliant and very clever, often said to be the smartest breed, but they need lots of exercise and things to do. Do you have a garden?",
        "A small one, and a park nearby.",
        "Then with daily walks and some games in the park, a collie could be very happy with you.",
    )),
)


def _conversation(index: int, *, worse: bool) -> dict[str, Any]:
    topic, turns = BETTER[index]
    dialog = []
    for n, text in enumerate(turns):
        speaker = "partner" if n % 2 == 0 else "model"
        if worse and speaker == "model":
            text = EVASIVE[(n // 2) % len(EVASIVE)]
        dialog.append({"speaker": speaker, "text": text})
    side = "worse" if worse else "better"
    return {"id": f"control-{side}-{index}", "model": f"{CONTROL_MODEL}-{side}", "speaker": "model", "topic": topic, "dialog": dialog}


def control_pairs(count: int, *, from_end: bool = False) -> list[dict[str, Any]]:
    """`count` check pairs {"a", "b", "winner"}, each of two different conversations; the better
    side alternates between a and b. `from_end` takes them from the other end of the list (the
    onboarding's, so that they differ from the queue's when both are few)."""
    combos = list(itertools.permutations(range(len(BETTER)), 2))
    if not 1 <= count <= len(combos):
        raise AnnotationError("bad_control_pairs", f"the number of control pairs must be 1–{len(combos)}, not {count}")
    chosen = combos[len(combos) - count:] if from_end else combos[:count]
    pairs = []
    for n, (good, bad) in enumerate(chosen):
        better, worse = _conversation(good, worse=False), _conversation(bad, worse=True)
        pairs.append({"a": better, "b": worse, "winner": "a"} if n % 2 == 0 else {"a": worse, "b": better, "winner": "b"})
    return pairs


def job_control_pairs_add(*, job: Job, count: int, onboarding: bool = False) -> int:
    """Add `count` built-in control pairs to a pairwise job as gold items (again: none added twice).
    A job that serves no gold gets CONTROL_GOLD_RATE, or the pairs would never be served. With
    `onboarding`, they are qualification items instead: answered before any real pair, and a judge
    below the job's qualification_min_score is turned away."""
    if job.kind != NAME:
        raise AnnotationError("bad_control_pairs", "control pairs belong to pairwise jobs only")
    role = ItemRole.QUALIFICATION if onboarding else ItemRole.GOLD
    pairs = control_pairs(count, from_end=onboarding)
    added = items_add(job=job, specs=[check_spec(job, raw, f"control pair {n}", role) for n, raw in enumerate(pairs)])
    if not onboarding and job.gold_rate <= 0:
        Job.objects.filter(pk=job.pk).update(gold_rate=CONTROL_GOLD_RATE)
        job.gold_rate = CONTROL_GOLD_RATE
    return added
