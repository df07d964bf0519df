"""The registry the core asks about task types and dataset formats; it names none of them.

A task type is one package under collect/tasktypes/ (or an installed distribution's, through the
`groundwork.task_types` entry point group: docs/new-task-type.md), a Django app whose
`AppConfig.ready()` registers a `TaskType` and the `Dataset` formats it reads and writes. Annotation
kinds (annotate/kinds/) register their datasets here too. After Django's set-up the registry is
complete and read-only in practice; a name registered twice is a programming error (ValueError).

Parts are given as dotted paths ("package.module.name") and imported on first use, so that a
process that never exports never imports an exporter, and registration itself imports nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Callable

from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from collect.protocols.base import Protocol


@dataclass(frozen=True)
class TaskType:
    """One kind of chat task (Mephisto's "blueprint"): a name and where its parts are.

    name: the value of Campaign.protocol and the name on the command line (`simulate NAME`).
    protocol: dotted path of the Protocol instance: roles, what each sees, the per-turn hook,
        the completion rule and the end-of-chat form (collect/protocols/base.py).
    dataset: the Dataset its campaigns export as ("" when it has none).
    simulate: dotted path of `async simulate(*, campaign, dialogues, concurrency, seed) -> list[str]`,
        scripted workers running whole dialogues through the real socket path (room ids out).
    demo: dotted path of `demo_ensure(*, wiki, say) -> None`, the demo campaign(s) `make run` serves
        (wiki: the demo knowledge source; say: prints a line), idempotent.
    enter: dotted path of a view `enter(request, campaign, assignment) -> HttpResponse` that seats a
        worker who has passed the door and onboarding, instead of the waiting room (a model chat
        needs no partner to wait for).
    worker_urls: dotted path of a urlpatterns list of the task type's own worker pages, served at
        the site's root in the `collect` namespace.
    research_urls: dotted path of a urlpatterns list of staff pages, served under /research/<name>/
        in the `research` namespace (research/urls.py).
    aliases: other names the command line accepts for it.
    """

    name: str
    label: str
    protocol: str
    dataset: str = ""
    simulate: str = ""
    demo: str = ""
    enter: str = ""
    worker_urls: str = ""
    research_urls: str = ""
    aliases: tuple[str, ...] = ()

    def part(self, attribute: str) -> Any:
        """The object a dotted-path attribute names (None when the task type has no such part)."""
        path = getattr(self, attribute)
        return _imported(path) if path else None


@dataclass(frozen=True)
class Dataset:
    """A dataset format Groundwork writes (`export_dataset NAME`) and/or reads (`import_dataset NAME`).

    export: dotted path of `export(out_dir: Path, options: ExportOptions) -> ExportResult`
        (collect/exporters/__init__.py), writing the dataset's original files.
    import_file: dotted path of `import_file(path: Path, options: dict) -> dict`: raises ValueError
        naming the record, line and field at fault, and stores nothing when it does.
    hf: dotted path of `hf(json_dir: Path, result: ExportResult) -> HfDataset`
        (collect/exporters/hf.py): the Hugging Face `datasets` rows, their declared features and the
        card's facts, built from the files `export` wrote into json_dir (`export_dataset --format hf`).
    conformance: dotted path of `conformance(json_dir: Path) -> list[Figure]` (collect/exporters/hf.py):
        the collected dialogues' statistics beside the original dataset's published ones.
    authenticity: whether its exporter writes each human turn's `authenticity` object when asked
        (ExportOptions.authenticity, docs/authenticity.md).
    collection: dotted path of `collection(options: ExportOptions) -> Collection`
        (collect/exporters/hf.py), for a dataset not made of its task types' campaigns (one written
        from an annotation job): what its card says of who made it. Without it, the campaigns'.
    """

    name: str
    label: str
    export: str = ""
    import_file: str = ""
    hf: str = ""
    conformance: str = ""
    authenticity: bool = False
    collection: str = ""

    def exporter(self) -> Callable[..., Any] | None:
        return _imported(self.export) if self.export else None

    def importer(self) -> Callable[..., Any] | None:
        return _imported(self.import_file) if self.import_file else None

    def hf_writer(self) -> Callable[..., Any] | None:
        return _imported(self.hf) if self.hf and self.export else None

    def collection_facts(self) -> Callable[..., Any] | None:
        return _imported(self.collection) if self.collection else None

    def conformance_report(self) -> Callable[..., Any] | None:
        return _imported(self.conformance) if self.conformance and self.export else None


@dataclass(frozen=True)
class CampaignPage:
    """A staff page about one campaign that another app serves (e.g. a model-chat campaign's
    evaluation results, from annotate): the research index links it beside the campaign's own.

    url_name: reversed with the campaign's slug; task_types: the task types whose campaigns have it."""

    label: str
    url_name: str
    task_types: tuple[str, ...]


@dataclass(frozen=True)
class Simulation:
    """A scripted run of `manage.py simulate NAME` that is no task type's own (e.g. an annotation
    kind's scripted annotators, registered from annotate, which collect does not import).

    run: dotted path of `run(*, dialogues: int, campaign: str, seed: int) -> str`: `campaign` the
        --campaign slug ("": the run chooses), the line the command prints; ValueError for what it
        cannot run, which the command reports."""

    name: str
    label: str
    run: str

    def runner(self) -> Callable[..., str]:
        return _imported(self.run)


_TASK_TYPES: dict[str, TaskType] = {}
_SIMULATIONS: dict[str, Simulation] = {}
_CAMPAIGN_PAGES: list[CampaignPage] = []
_DATASETS: dict[str, Dataset] = {}
# Lines a dataset card adds about the exported campaigns (e.g. annotation jobs' agreement, which
# annotate computes): `section(campaigns: tuple[str, ...]) -> list[str]` of Markdown.
_CARD_SECTIONS: list[Callable[[tuple[str, ...]], list[str]]] = []
_HF_COMPANIONS: dict[str, list[str]] = {}  # dataset -> dotted paths of its companion configs' hooks


def task_type_register(task_type: TaskType) -> None:
    for name in (task_type.name, *task_type.aliases):
        if name in _TASK_TYPES:
            raise ValueError(f"task type {name!r} is registered twice")
    for name in (task_type.name, *task_type.aliases):
        _TASK_TYPES[name] = task_type


def dataset_register(dataset: Dataset) -> None:
    if dataset.name in _DATASETS:
        raise ValueError(f"dataset {dataset.name!r} is registered twice")
    _DATASETS[dataset.name] = dataset


def simulation_register(simulation: Simulation) -> None:
    if simulation.name in _SIMULATIONS or simulation.name in _TASK_TYPES:
        raise ValueError(f"simulation {simulation.name!r}: the name is a registered simulation or task type already")
    _SIMULATIONS[simulation.name] = simulation


def simulations() -> dict[str, Simulation]:
    """The simulations beside the task types' own, by name."""
    return dict(_SIMULATIONS)


def campaign_page_register(page: CampaignPage) -> None:
    _CAMPAIGN_PAGES.append(page)


def hf_companion_register(*, dataset: str, hook: str) -> None:
    """A further config of dataset `dataset`'s Hugging Face export, from a file another app writes
    beside its JSON export: `hook` is the dotted path of `hook(json_dir: Path) -> HfConfig | None`
    (collect/exporters/hf.py; None when the file holds nothing)."""
    _HF_COMPANIONS.setdefault(dataset, [])
    if hook not in _HF_COMPANIONS[dataset]:
        _HF_COMPANIONS[dataset].append(hook)


def hf_companions(dataset: str) -> list[Callable[..., Any]]:
    return [_imported(hook) for hook in _HF_COMPANIONS.get(dataset, [])]


def card_section_register(section: Callable[[tuple[str, ...]], list[str]]) -> None:
    """A hook of a higher layer that adds Markdown lines to every dataset card
    (collect/exporters/hf.py) about the campaigns exported (slugs in)."""
    if section not in _CARD_SECTIONS:
        _CARD_SECTIONS.append(section)


def card_sections() -> list[Callable[[tuple[str, ...]], list[str]]]:
    return list(_CARD_SECTIONS)


def campaign_pages(task_type_name: str) -> list[CampaignPage]:
    return [page for page in _CAMPAIGN_PAGES if task_type_name in page.task_types]


def task_type(name: str) -> TaskType:
    """The task type of that name (or alias); ValueError naming the known ones otherwise."""
    try:
        return _TASK_TYPES[name]
    except KeyError:
        raise ValueError(f"unknown task type {name!r}; known: {', '.join(task_type_names())}") from None


def task_types() -> list[TaskType]:
    """Every task type once, in registration (INSTALLED_APPS) order."""
    return list(dict.fromkeys(_TASK_TYPES.values()))


def task_type_names(*, aliases: bool = False) -> list[str]:
    return sorted(_TASK_TYPES) if aliases else [t.name for t in task_types()]


def task_type_choices() -> list[tuple[str, str]]:
    """Campaign.protocol's choices (a callable: a new task type needs no migration)."""
    return [(t.name, t.label) for t in task_types()]


def protocol(name: str) -> Protocol:
    """The room rules of the task type `name` (ValueError for an unknown one). Every chat message
    asks, so the object is imported once and kept."""
    return _imported(task_type(name).protocol)


def dataset(name: str) -> Dataset:
    try:
        return _DATASETS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; choose one of: {', '.join(dataset_names())}") from None


def dataset_carries_authenticity(name: str) -> bool:
    """Whether dataset `name` exports authenticity objects when asked (False for an unknown one)."""
    return name in _DATASETS and _DATASETS[name].authenticity


def datasets() -> list[Dataset]:
    return list(_DATASETS.values())


def dataset_names(*, exported: bool = False, imported: bool = False, hf: bool = False) -> list[str]:
    return sorted(
        d.name for d in _DATASETS.values()
        if (not exported or d.export) and (not imported or d.import_file) and (not hf or bool(d.hf))
    )


def dataset_task_types(name: str) -> list[TaskType]:
    """The task types whose campaigns export as dataset `name` (none for an annotation dataset)."""
    return [t for t in task_types() if t.dataset == name]


@cache
def _imported(path: str) -> Any:
    return import_string(path)
