"""Sample dialogues for the demo's annotation jobs: for each demo campaign a closed twin
("<slug>-samples") whose few rooms scripted workers run through the real chat path (each task
type's simulator, collect.registry). Kept apart from the demo campaigns, so that those stay empty
for people to try."""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from django.test.utils import override_settings

from collect import registry
from collect.models import Campaign, Persona, RoomStatus

log = logging.getLogger(__name__)
ATTEMPTS = 3  # a scripted dialogue is now and then refused by a race of its own; the next one runs


def samples_ensure(*, campaign: Campaign, dialogues: int, config: dict | None = None) -> Campaign | None:
    """The closed twin of `campaign` with at least `dialogues` complete rooms, or None when the
    simulation kept failing (the demo goes on without that job). `config`: the twin's task-type
    settings when it is made (default: the campaign's)."""
    twin, created = Campaign.objects.get_or_create(
        slug=f"{campaign.slug}-samples",
        defaults={
            "name": f"{campaign.name}: simulated sample dialogues", "protocol": campaign.protocol,
            "knowledge_source": campaign.knowledge_source, "protocol_config": campaign.protocol_config if config is None else config,
            "min_turns": campaign.min_turns, "max_turns": campaign.max_turns, "turn_limit": campaign.turn_limit,
            "instructions": campaign.instructions, "is_active": False,
        },
    )
    if created:
        Persona.objects.bulk_create(Persona(campaign=twin, text=p.text, topics=p.topics) for p in campaign.personas.all())
    complete = twin.rooms.filter(status=RoomStatus.COMPLETE)
    simulate_until(twin, lambda: dialogues - complete.count())
    twin.refresh_from_db()
    return twin if complete.count() >= dialogues else None


def simulate_until(twin: Campaign, missing: Callable[[], int], timeout: float | None = None) -> None:
    """Run the twin's simulator until `missing()` is 0, at most ATTEMPTS times (`timeout`: how long
    a scripted worker waits for each step, when not the simulator's own)."""
    waits = {} if timeout is None else {"timeout": timeout}
    for attempt in range(ATTEMPTS):
        needed = missing()
        if needed <= 0:
            break
        Campaign.objects.filter(pk=twin.pk).update(is_active=True)
        twin.refresh_from_db()  # the scripted workers' rooms follow its config as it is now
        try:
            # Their tasks (knowledge, model turns) run in this process, whatever workers run or not.
            with override_settings(CELERY_TASK_ALWAYS_EAGER=True):
                asyncio.run(registry.task_type(twin.protocol).part("simulate")(campaign=twin, dialogues=needed, concurrency=1, seed=attempt, **waits))
        except (Exception, asyncio.CancelledError) as error:  # a timed-out dialogue's socket ends cancelled
            log.warning("demo samples of %s: a simulated dialogue failed (%s)", twin.slug, error)
        finally:
            Campaign.objects.filter(pk=twin.pk).update(is_active=False)

