"""`manage.py simulate faithdial --dialogues N [--campaign SLUG] [--seed S]`: two scripted annotators
label (and, where unfaithful, rewrite) the wizard responses of N complete Wizard of Wikipedia
dialogues, through the services the annotation API calls (assignment_next, the screen's item view,
answer_submit: the kind's own answer check included). The dialogues are the first N complete rooms
of the campaign (default: every WoW campaign), in creation order, put into job
`faithdial-simulation` (created once, overlap 2; a rerun adds the rooms it lacks).

An annotator's script: a response whose words are mostly in its knowledge is Entailment; any other
is, by a seeded draw per annotator, Hallucination or Partial Hallucination, and is rewritten to
admit what the knowledge does not say and give what it does ("I don't know, but ..."). VRM: Question
for a question, Disclosure for a first-person opening, Edification otherwise.
"""

from __future__ import annotations

import random
import re
from typing import Any

from django.conf import settings

from annotate.kinds.faithdial import NAME
from annotate.kinds.faithdial.items import room_specs
from annotate.models import Job
from annotate.selectors.items import item_for_annotator
from annotate.services import AnnotationError
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from annotate.services.jobs import items_add, job_create
from collect.models import Campaign, Room, RoomStatus, Worker
from collect.tasktypes.wow import NAME as WOW

JOB = "faithdial-simulation"
ANNOTATORS = ("faithdial-sim-a", "faithdial-sim-b")
WORD = re.compile(r"[a-z0-9']+")


def run(*, dialogues: int, campaign: str, seed: int) -> str:
    """The line `simulate` prints. ValueError when there are no WoW dialogues to annotate."""
    campaigns = Campaign.objects.filter(protocol=WOW)
    if campaign:
        campaigns = campaigns.filter(slug=campaign)
        if not campaigns.exists():
            raise ValueError(f"no Wizard of Wikipedia campaign {campaign!r}")
    rooms = list(Room.objects.filter(campaign__in=campaigns, status=RoomStatus.COMPLETE).order_by("created", "id")[:dialogues])
    if not rooms:
        raise ValueError("no complete Wizard of Wikipedia dialogues to annotate: run `manage.py simulate wow --dialogues N` first")
    job = Job.objects.filter(slug=JOB).first()
    if job is None:
        job = job_create(slug=JOB, name="FaithDial (simulated annotators)", kind=NAME, overlap=len(ANNOTATORS))
    elif job.kind != NAME:
        raise ValueError(f"job {JOB!r} exists and is a {job.kind} job")
    items_add(job=job, specs=[spec for room in rooms for spec in room_specs(job, room)])
    answered = 0
    for n, name in enumerate(ANNOTATORS):
        worker, _ = Worker.objects.get_or_create(platform="simulation", external_id=name)
        answered += annotate_all(job, worker, random.Random(f"{seed}:{n}"))
    return f"simulated {answered} FaithDial answers by {len(ANNOTATORS)} annotators on {job.items.count()} responses of {len(rooms)} dialogues in job {job.slug}"


def annotate_all(job: Job, worker: Worker, rng: random.Random) -> int:
    answered = 0
    while True:
        next_item = assignment_next(job=job, worker=worker)
        if next_item.assignment is None:
            return answered
        view = item_for_annotator(next_item.assignment.item, NAME)
        try:
            answer_submit(item_id=view["id"], worker=worker, time_spent_ms=rng.randint(5_000, 60_000), **scripted_answer(view, rng))
        except AnnotationError as error:
            raise ValueError(f"the scripted answer to item {view['id']} was refused: {error.message}") from error
        answered += 1


def scripted_answer(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    response, knowledge = view["response"], view["knowledge"]
    words = WORD.findall(response.lower())
    supported = sum(1 for w in words if w in set(WORD.findall(knowledge.lower())))
    vrm = ["Question"] if "?" in response else ["Disclosure"] if re.match(r"(?i)i\b", response) else ["Edification"]
    if words and 2 * supported >= len(words):
        return {"begin": ["Entailment"], "vrm": vrm, "response": ""}
    begin = [rng.choice(["Hallucination", "Partial Hallucination"])]
    rewrite = f"I don't know that, but I do know this: {knowledge}"[: settings.MESSAGE_MAX_CHARS]
    return {"begin": begin, "vrm": vrm, "response": rewrite}
