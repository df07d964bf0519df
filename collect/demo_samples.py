"""Sample dialogues for the demo's annotation jobs: for each demo campaign a closed twin
("<slug>-samples") whose few rooms scripted workers run through the real chat path (collect's
simulators). Kept apart from the demo campaigns, so that those stay empty for people to try."""

from __future__ import annotations

import asyncio
import logging

from django.test.utils import override_settings

from collect.modelchat.simulation import simulate as simulate_model_chat
from collect.models import Campaign, Persona, Protocol, RoomStatus
from collect.simulation import simulate as simulate_wow
from collect.simulation_curiosity import simulate as simulate_curiosity
from collect.simulation_duconv import simulate as simulate_duconv

log = logging.getLogger(__name__)
SIMULATORS = {
    Protocol.WOW: simulate_wow, Protocol.CURIOSITY: simulate_curiosity,
    Protocol.DUCONV: simulate_duconv, Protocol.MODEL_CHAT: simulate_model_chat,
}
ATTEMPTS = 3  # a scripted dialogue is now and then refused by a race of its own; the next one runs


def samples_ensure(*, campaign: Campaign, dialogues: int) -> Campaign | None:
    """The closed twin of `campaign` with at least `dialogues` complete rooms, or None when the
    simulation kept failing (the demo goes on without that job)."""
    twin, created = Campaign.objects.get_or_create(
        slug=f"{campaign.slug}-samples",
        defaults={
            "name": f"{campaign.name}: simulated sample dialogues", "protocol": campaign.protocol,
            "knowledge_source": campaign.knowledge_source, "protocol_config": campaign.protocol_config,
            "min_turns": campaign.min_turns, "max_turns": campaign.max_turns, "turn_limit": campaign.turn_limit,
            "instructions": campaign.instructions, "is_active": False,
        },
    )
    if created:
        Persona.objects.bulk_create(Persona(campaign=twin, text=p.text, topics=p.topics) for p in campaign.personas.all())
    for attempt in range(ATTEMPTS):
        missing = dialogues - twin.rooms.filter(status=RoomStatus.COMPLETE).count()
        if missing <= 0:
            break
        Campaign.objects.filter(pk=twin.pk).update(is_active=True)
        try:
            # Their tasks (knowledge, model turns) run in this process, whatever workers run or not.
            with override_settings(CELERY_TASK_ALWAYS_EAGER=True):
                asyncio.run(SIMULATORS[twin.protocol](campaign=twin, dialogues=missing, concurrency=1, seed=attempt))
        except (Exception, asyncio.CancelledError) as error:  # a timed-out dialogue's socket ends cancelled
            log.warning("demo samples of %s: a simulated dialogue failed (%s)", twin.slug, error)
        finally:
            Campaign.objects.filter(pk=twin.pk).update(is_active=False)
    twin.refresh_from_db()
    return twin if twin.rooms.filter(status=RoomStatus.COMPLETE).count() >= dialogues else None
