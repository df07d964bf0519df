"""Seating a model-chat worker and their onboarding. A worker's arm is drawn when they are seated:
the arm (a model, or the human control) that still needs the most conversations, ties at random.
The model arm opens a room at once with the model in the partner seat (no waiting room); the
control arm waits to be paired with another person, as in a WoW campaign."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from collect.tasktypes.modelchat.config import config_for
from collect.tasktypes.modelchat.local_queue import checkpoint_warm_soon
from collect.tasktypes.modelchat.models import HUMAN_ARM, EvalModel, ModelChat, ModelChatArm, ModelChatOnboarding
from collect.tasktypes.modelchat.onboarding import answers_check, expected_labels
from collect.tasktypes.modelchat.protocol import EVALUATOR, MODEL_CHAT, PARTNER
from collect.models import MODEL_PLATFORM, Assignment, AssignmentStatus, Campaign, Room, RoomStatus, Worker
from collect.services.matchmaking import worker_get_or_create

# A live conversation older than this no longer holds its arm's place (its worker has gone).
LIVE_HOLD = timedelta(hours=1)
# The role of a waiting assignment seated in the control arm, until pairing gives it its room role.
CONTROL_WAITING = "control"


class CampaignFull(Exception):
    """Every arm of the campaign has the conversations it needs."""


def arm_counts(*, campaign: Campaign) -> dict[str, int]:
    """Conversations per arm (model name, or "human") that count towards the quotas: complete
    ones, and live ones started within LIVE_HOLD."""
    live = Q(room__status=RoomStatus.COMPLETE) | (
        ~Q(room__status=RoomStatus.INCOMPLETE) & Q(room__created__gte=timezone.now() - LIVE_HOLD)
    )
    rows = ModelChat.objects.filter(room__campaign=campaign).filter(live).values("arm", "model__name").annotate(n=Count("id"))
    return {row["model__name"] or HUMAN_ARM: row["n"] for row in rows}


def control_waiting(*, campaign: Campaign) -> int:
    """Workers in the waiting room for the control arm (seated there within the wait timeout)."""
    since = timezone.now() - timedelta(seconds=campaign.wait_timeout_seconds)
    return Assignment.objects.filter(
        campaign=campaign, status=AssignmentStatus.WAITING, role=CONTROL_WAITING, created__gte=since
    ).count()


def arm_pick(*, campaign: Campaign, rng: random.Random | None = None) -> str:
    """The arm the next worker joins: a model name, or "human". Raises CampaignFull."""
    config = config_for(campaign)
    counts = arm_counts(campaign=campaign)
    # A model unregistered or switched off since the campaign was set up takes no one.
    active = set(EvalModel.objects.filter(name__in=config.models, is_active=True).values_list("name", flat=True))
    needs = {name: n - counts.get(name, 0) for name, n in config.models.items() if name in active}
    if config.control:
        waiting = control_waiting(campaign=campaign)
        # Pairs forming in the waiting room count as conversations; a worker waiting alone for a
        # partner gets the next worker, so that nobody waits while others chat with models.
        needs[HUMAN_ARM] = config.control - counts.get(HUMAN_ARM, 0) - waiting // 2
        if waiting % 2 and needs[HUMAN_ARM] > 0:
            return HUMAN_ARM
    best = max(needs.values(), default=0)
    if best <= 0:
        raise CampaignFull(campaign.slug)
    return (rng or random).choice(sorted(name for name, need in needs.items() if need == best))


def bot_worker(*, model: EvalModel) -> Worker:
    return worker_get_or_create(platform=MODEL_PLATFORM, external_id=model.name)


def modelchat_seat(*, assignment: Assignment) -> Room | None:
    """Seat a waiting worker: a new room with a model (returned), or None for the control arm (the
    worker waits to be paired). Raises CampaignFull."""
    if assignment.room_id:
        return assignment.room
    if assignment.role == CONTROL_WAITING:
        return None  # already in the control arm's waiting room
    arm = arm_pick(campaign=assignment.campaign)
    if arm == HUMAN_ARM:
        Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.WAITING).update(role=CONTROL_WAITING)
        return None
    model = EvalModel.objects.get(name=arm)
    seat = bot_worker(model=model)
    with transaction.atomic():
        claimed = Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.WAITING).update(
            status=AssignmentStatus.PAIRED
        )
        if not claimed:
            return Assignment.objects.get(pk=assignment.pk).room
        room = MODEL_CHAT.room_create(campaign=assignment.campaign)
        ModelChat.objects.filter(room=room).update(arm=ModelChatArm.MODEL, model=model)
        # The model is always present: its seat never times out as a departed partner.
        Assignment.objects.create(
            campaign=assignment.campaign, worker=seat, status=AssignmentStatus.PAIRED, room=room, role=PARTNER, connected=True
        )
        now = timezone.now()
        Assignment.objects.filter(pk=assignment.pk).update(room=room, role=EVALUATOR, connected=False, left_at=now, last_seen=now)
        checkpoint_warm_soon(model=model)
    return room


def onboarding_required(*, campaign: Campaign, worker: Worker) -> bool:
    config = config_for(campaign)
    if not config.problems or not config.onboarding_attempts:
        return False
    return not ModelChatOnboarding.objects.filter(campaign=campaign, worker=worker, passed=True).exists()


@dataclass(frozen=True)
class OnboardingResult:
    passed: bool
    attempts_left: int
    wrong: tuple[int, ...]  # indexes of SAMPLE turns labelled wrongly


def onboarding_submit(*, campaign: Campaign, worker: Worker, answers: dict[int, list[str]]) -> OnboardingResult:
    """Check one try at the sample conversation. `answers` maps the index of each model turn of
    SAMPLE to the labels ticked. A worker out of attempts gets passed=False, attempts_left=0.
    Labels that cannot be an answer ("None" with a problem) raise OnboardingRefused and use no attempt."""
    config = config_for(campaign)
    answers_check(answers, config.problems)
    with transaction.atomic():
        record, _ = ModelChatOnboarding.objects.select_for_update().get_or_create(campaign=campaign, worker=worker)
        if record.passed:
            return OnboardingResult(True, config.onboarding_attempts - record.attempts, ())
        if record.attempts >= config.onboarding_attempts:
            return OnboardingResult(False, 0, ())
        expected = expected_labels(config.problems)
        wrong = tuple(i for i, labels in expected.items() if set(answers.get(i, [])) != set(labels))
        record.attempts += 1
        record.passed = not wrong
        record.save(update_fields=["attempts", "passed", "updated"])
    return OnboardingResult(record.passed, config.onboarding_attempts - record.attempts, wrong)


