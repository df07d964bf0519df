"""The live campaign dashboard's numbers: who is waiting and chatting now, rooms ended per hour,
outcome shares, median duration and turns, ratings, and the money owed. Worker figures count people
only, never a model's seat (Assignment.objects.humans())."""

from __future__ import annotations

from datetime import timedelta
from statistics import median
from typing import Any

from django.db.models import Count
from django.utils import timezone

from collect.lifecycle.onboarding import qualification_name
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Qualification, Room, RoomStatus
from collect import registry
from collect.review.selectors import owed_cents
from collect.services.matchmaking import LIVE_ROOM_STATUSES

HOURS = 12


def campaign_stats(*, campaign: Campaign) -> dict[str, Any]:
    now = timezone.now()
    ended = Room.objects.filter(campaign=campaign, status__in=(RoomStatus.COMPLETE, RoomStatus.INCOMPLETE))
    workers = Assignment.objects.humans().filter(campaign=campaign)
    outcomes = dict(workers.exclude(outcome="").values_list("outcome").annotate(n=Count("id")).values_list("outcome", "n"))
    total = sum(outcomes.values())
    since = now - timedelta(hours=HOURS)
    per_hour: dict[int, list[int]] = {h: [0, 0] for h in range(HOURS)}
    for status, when in ended.filter(ended__gte=since).values_list("status", "ended"):
        slot = min(HOURS - 1, int((now - when).total_seconds() // 3600))
        per_hour[slot][0 if status == RoomStatus.COMPLETE else 1] += 1
    complete = list(ended.filter(status=RoomStatus.COMPLETE).annotate(n=Count("messages")).values_list("created", "ended", "n"))
    finished = workers.exclude(outcome="").select_related("campaign")
    waiting = workers.filter(status=AssignmentStatus.WAITING)
    onboarding = waiting.none()
    if isinstance(campaign.onboarding, dict) and campaign.onboarding.get("quiz"):
        passed = Qualification.objects.filter(name=qualification_name(campaign), passed=True).values("worker_id")
        onboarding = waiting.exclude(worker_id__in=passed)
    in_onboarding = onboarding.count()
    return {
        # Only workers who can be paired: those still reading the instructions or taking the quiz apart.
        "waiting_now": waiting.count() - in_onboarding,
        "onboarding_now": in_onboarding,
        "rooms_live": Room.objects.filter(campaign=campaign, status__in=LIVE_ROOM_STATUSES).count(),
        "rooms_complete": sum(1 for _ in complete),
        "rooms_incomplete": ended.filter(status=RoomStatus.INCOMPLETE).count(),
        # Oldest hour first: [("-11h", complete, abandoned), ..., ("now", ...)].
        "per_hour": [(f"-{h}h" if h else "now", *per_hour[h]) for h in reversed(range(HOURS))],
        "outcomes": [(str(o), outcomes.get(str(o), 0), outcomes.get(str(o), 0) / total if total else 0.0) for o in Outcome],
        "median_minutes": round(median(durations) / 60, 1) if (durations := [(e - c).total_seconds() for c, e, _ in complete if e]) else None,
        "median_turns": median(n for _, _, n in complete) if complete else None,
        # Each rating the task type collects, titled by who rated whom: [(title, [(value, rooms)])].
        "ratings": registry.protocol(campaign.protocol).rating_histograms(campaign=campaign, rooms=ended),
        "owed_cents": sum(owed_cents(a) for a in finished),
    }
