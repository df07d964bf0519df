"""What the golden exports (tests/test_golden_exports.py) pin so that one seeded run writes the same
bytes as the next, with the product's code left as it is.

- Draws: every module of the project's own packages (its apps and the URLconf's: groundwork,
  retrieval, collect, annotate, research today) that holds the `random`, `uuid` or `secrets` module
  gets a seeded stand-in in its place. One stream per kind, shared by all the modules, so that
  moving code between modules changes nothing; `Random()` without a seed gets the next seed of
  that stream, `uuid4()` a seeded version-4 uuid, `token_hex()` seeded hex; everything else
  (`Random(seed)`, `uuid5`, `UUID`, `compare_digest`, ...) is the real thing. Pinned: room topics,
  first speakers, turns drawn, personas, roles, goals, aspects, related entities, model arms, the
  simulated workers' names (their pseudonyms in the exports).
- Ids: a model field whose default is `uuid.uuid4` (Room.id: the exports' order, splits, candidate
  draws and conversation ids) holds that function itself, so it gets the stand-in's `uuid4` too.
- Wall-clock values that reach the exports are set after the dialogues, not frozen while they run
  (timeouts, heartbeats and sweeps need a real clock): rooms' `created` (Curiosity `created_time`,
  model chat `created`, the order of DuConv and model chat records) and model turns' `latency_ms`.
"""

from __future__ import annotations

import importlib
import random
import secrets
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

from django.apps import apps
from django.conf import settings
from django.urls import get_resolver

from collect.tasktypes.modelchat.models import ModelTurn
from collect.models import Room

# Imported before pinning (those that exist), with every view module (the URLs) and every part the
# registries name (_registered_modules): the product modules the build reaches that nothing imports
# sooner. One imported later keeps its real draws, and unpinned_modules names it: add it here.
ENTRY_MODULES = (
    "groundwork.asgi",
    "collect.management.commands.simulate",
    "collect.management.commands.export_dataset",
    "collect.management.commands.import_dataset",
    "annotate.management.commands.create_annotation_job",
    "annotate.management.commands.annotation_report",
    "annotate.kinds.dialog_acts.exporter",
    "annotate.kinds.relevance.exporter",
    "annotate.kinds.pairwise.exporter",
    "annotate.kinds.duconv_eval.scoring",
    "collect.tasktypes.wow.exporter",
    "collect.tasktypes.curiosity.exporter",
    "collect.tasktypes.duconv.exporter",
    "collect.tasktypes.modelchat.exporter",
    "collect.tasktypes.wow.protocol",
    "collect.tasktypes.curiosity.protocol",
    "collect.tasktypes.duconv.protocol",
    "collect.tasktypes.modelchat.protocol",
    "collect.tasktypes.modelchat.duconv",
    "collect.tasktypes.modelchat.services",
    "collect.tasktypes.modelchat.tasks",
)
CREATED_FROM = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)  # rooms' created, one minute apart in creation order
LATENCY_MS = 250  # every model turn's latency


class SeededRandom:
    """Stands in for the `random` module: module-level functions draw from one seeded Random."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def Random(self, seed: Any = None) -> random.Random:  # the module's name, capitalised
        return random.Random(self._rng.getrandbits(64) if seed is None else seed)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng if hasattr(self._rng, name) else random, name)


class SeededUuid:
    """Stands in for the `uuid` module: `uuid4()` seeded, the rest real."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(int=self._rng.getrandbits(128), version=4)

    def __getattr__(self, name: str) -> Any:
        return getattr(uuid, name)


class SeededSecrets:
    """Stands in for the `secrets` module: `token_hex()` seeded, the rest real."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def token_hex(self, nbytes: int = 32) -> str:
        return self._rng.randbytes(nbytes).hex()

    def __getattr__(self, name: str) -> Any:
        return getattr(secrets, name)


def _product_modules() -> Iterator[ModuleType]:
    """Loaded modules of the project's own packages: its apps' and the URLconf's."""
    root = Path(settings.BASE_DIR).resolve()
    # A virtualenv inside the checkout (make's .venv) holds libraries, not the product.
    packages = {
        app.name.split(".")[0] for app in apps.get_app_configs()
        if Path(app.path).resolve().is_relative_to(root) and "site-packages" not in Path(app.path).parts
    }
    packages.add(settings.ROOT_URLCONF.split(".")[0])
    for name, module in list(sys.modules.items()):
        if module is not None and name.split(".")[0] in packages:
            yield module


@contextmanager
def pinned(seed: str) -> Iterator[None]:
    """Seeded draws in every loaded product module and for uuid4 model defaults, while inside."""
    for name in ENTRY_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:
            if not (error.name and name.startswith(error.name)):
                raise  # the module exists; something it imports does not
    for name in _registered_modules():
        importlib.import_module(name)
    _ = get_resolver().url_patterns  # every app's URLs, so every view module
    stand_ins: dict[ModuleType, Any] = {
        random: SeededRandom(f"{seed}:random"),
        uuid: SeededUuid(f"{seed}:uuid"),
        secrets: SeededSecrets(f"{seed}:secrets"),
    }
    with ExitStack() as undo:
        for module in _product_modules():
            for attr, value in list(vars(module).items()):
                if isinstance(value, ModuleType) and value in stand_ins:
                    setattr(module, attr, stand_ins[value])
                    undo.callback(setattr, module, attr, value)
        for model in apps.get_models():
            for field in model._meta.concrete_fields:
                if field.default is uuid.uuid4:
                    _default_set(field, stand_ins[uuid].uuid4)
                    undo.callback(_default_set, field, uuid.uuid4)
        yield


def _registered_modules() -> list[str]:
    """The modules of every part the registries name by dotted path (task types', datasets' and
    annotation kinds'): the registries import them on first use, which may come after pinning."""
    from annotate import registry as annotation_registry
    from collect import registry

    declared = [*registry.task_types(), *registry.datasets(), *annotation_registry.annotation_kinds()]
    paths = {value for item in declared for value in vars(item).values() if isinstance(value, str) and _dotted(value)}
    return sorted({path.rsplit(".", 1)[0] for path in paths})


def _dotted(value: str) -> bool:
    return "." in value and not any(c in value for c in " /-") and value.split(".")[0] in {"collect", "annotate", "research", "retrieval"}


def _default_set(field: Any, default: Callable[[], Any]) -> None:
    field.default = default
    field.__dict__.pop("_get_default", None)  # Django caches the callable it calls


def unpinned_modules() -> list[str]:
    """Names in product modules that still draw unseeded: the real random/uuid/secrets module in a
    module loaded since pinning (add it to ENTRY_MODULES), or a drawing function imported by name
    (`from random import choice`), which no stand-in can reach."""
    return sorted(
        f"{module.__name__}.{attr}" for module in _product_modules() for attr, value in vars(module).items() if _draws(value)
    )


def _draws(value: Any) -> bool:
    if isinstance(value, ModuleType):
        return value in (random, uuid, secrets)
    if value is random.Random or value is uuid.uuid4 or getattr(value, "__module__", None) == "secrets":
        return True
    return getattr(value, "__self__", None) is random._inst  # random.choice and the other module-level functions


def wall_clock_settle() -> None:
    """Rooms' created times and model latencies, set to fixed values in the rooms' creation order."""
    for n, room_id in enumerate(Room.objects.order_by("created", "id").values_list("id", flat=True)):
        Room.objects.filter(pk=room_id).update(created=CREATED_FROM + timedelta(minutes=n))
    ModelTurn.objects.update(latency_ms=LATENCY_MS)
