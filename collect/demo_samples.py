"""Sample dialogues for the demo's annotation jobs: for each demo campaign a closed twin
("<slug>-samples") whose few rooms scripted workers run through the real chat path (collect's
simulators). Kept apart from the demo campaigns, so that those stay empty for people to try.
The model-chat twin's random rooms have the built-in bots only; a local checkpoint (the demo's
SmolLM2) gets a few rooms of its own (model_samples_ensure), its replies really generated."""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from django.test.utils import override_settings

from collect.modelchat.models import EvalModel, ModelChat
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
# A checkpoint's first reply waits for its load: about a minute on a busy CPU.
MODEL_SAMPLE_TIMEOUT_S = 240.0


def samples_ensure(*, campaign: Campaign, dialogues: int) -> Campaign | None:
    """The closed twin of `campaign` with at least `dialogues` complete rooms, or None when the
    simulation kept failing (the demo goes on without that job)."""
    twin, created = Campaign.objects.get_or_create(
        slug=f"{campaign.slug}-samples",
        defaults={
            "name": f"{campaign.name}: simulated sample dialogues", "protocol": campaign.protocol,
            "knowledge_source": campaign.knowledge_source, "protocol_config": _builtin_models_only(campaign.protocol_config),
            "min_turns": campaign.min_turns, "max_turns": campaign.max_turns, "turn_limit": campaign.turn_limit,
            "instructions": campaign.instructions, "is_active": False,
        },
    )
    if created:
        Persona.objects.bulk_create(Persona(campaign=twin, text=p.text, topics=p.topics) for p in campaign.personas.all())
    complete = twin.rooms.filter(status=RoomStatus.COMPLETE)
    _simulate(twin, lambda: dialogues - complete.count())
    twin.refresh_from_db()
    return twin if complete.count() >= dialogues else None


def model_samples_ensure(*, twin: Campaign, model: EvalModel, dialogues: int) -> int:
    """Complete dialogues of the model-chat twin `twin` with `model`, up to `dialogues`; returns how
    many it has. While they run, the twin's only arm is `model` (its config is put back after)."""
    config = twin.protocol_config
    if model_samples_count(twin=twin, model=model) < dialogues:
        Campaign.objects.filter(pk=twin.pk).update(protocol_config={**config, "models": {model.name: dialogues}, "control": 0})
        try:
            _simulate(twin, lambda: dialogues - model_samples_count(twin=twin, model=model), timeout=MODEL_SAMPLE_TIMEOUT_S)
        finally:
            Campaign.objects.filter(pk=twin.pk).update(protocol_config=config)
    return model_samples_count(twin=twin, model=model)


def model_samples_count(*, twin: Campaign, model: EvalModel) -> int:
    return ModelChat.objects.filter(room__campaign=twin, model=model, room__status=RoomStatus.COMPLETE).count()


def _simulate(twin: Campaign, missing: Callable[[], int], timeout: float | None = None) -> None:
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
                asyncio.run(SIMULATORS[twin.protocol](campaign=twin, dialogues=needed, concurrency=1, seed=attempt, **waits))
        except (Exception, asyncio.CancelledError) as error:  # a timed-out dialogue's socket ends cancelled
            log.warning("demo samples of %s: a simulated dialogue failed (%s)", twin.slug, error)
        finally:
            Campaign.objects.filter(pk=twin.pk).update(is_active=False)


def _builtin_models_only(config: dict) -> dict:
    """A model-chat config with only the built-in bots (Python classes): an endpoint may be down,
    and a checkpoint such as the demo's SmolLM2 gets its own few rooms (model_samples_ensure)."""
    from collect.modelchat.models import EvalModelKind

    if not isinstance(config.get("models"), dict):
        return config
    builtin = set(EvalModel.objects.filter(name__in=config["models"], kind=EvalModelKind.PYTHON).values_list("name", flat=True))
    return {**config, "models": {name: count for name, count in config["models"].items() if name in builtin}}
