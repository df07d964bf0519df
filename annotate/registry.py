"""The registry annotate's core asks about annotation kinds; it names none of them.

An annotation kind (relevance votes, dialog acts, scores, pairwise judgments...) is one package under
annotate/kinds/ (or an installed distribution's, through the `groundwork.task_types` entry point
group: groundwork/task_apps.py), a Django app whose `AppConfig.ready()` registers an
`AnnotationKind`, the dataset formats it reads and writes (collect.registry) and its hooks into
other apps. The core (jobs, items, assignment with overlap, answers, agreement, progress, entries,
the API, the screens' shell, the reports) asks this registry: `Job.kind` holds a registered name.
A name registered twice is a programming error (ValueError).

Parts are dotted paths ("package.module.name") imported on first use, as in collect.registry, so
that registering a kind imports nothing of it.
"""

from __future__ import annotations

from argparse import ArgumentParser
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from annotate.models import Item, Job
    from collect.models import Worker

# What a job exports when its kind names no dataset for it: its annotation report (JSON).
REPORT = "annotation-report"


@dataclass(frozen=True)
class JobExport:
    """How one job exports. `dataset`: a collect.registry Dataset; without `campaigns` it writes
    this job alone (`export_dataset NAME --job SLUG`), with them it is those campaigns' export,
    which carries the job's labels. `label`: what the files are, for people ("": the dataset's name)."""

    dataset: str
    campaigns: tuple[str, ...] = ()
    label: str = ""


class JobOptions:
    """A kind's own options of `manage.py create_annotation_job` (as a Mephisto blueprint declares
    its arguments). The command adds every kind's arguments and refuses one given for a job of
    another kind. Override what the kind needs; by default it takes none. Errors: AnnotationError,
    which the command reports; nothing is written before job_settings or job_update returns."""

    def add_arguments(self, parser: ArgumentParser) -> None:
        """Add the kind's arguments (parser.add_argument, add_argument_group and
        add_mutually_exclusive_group, nothing else)."""

    def job_settings(self, opts: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments for job_create (the job's columns, `candidates`) from the parsed options."""
        return {}

    def job_update(self, job: Job, opts: dict[str, Any]) -> Job:
        """An existing job, run again with the kind's options: set those that may change while it
        runs (e.g. a study's plan and stopping rules) and return the job; by default none."""
        return job

    def items_options(self, opts: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments for job_items_from_campaigns (the kind's own `from_campaigns` options)."""
        return {}

    def after_items(self, job: Job, opts: dict[str, Any]) -> str:
        """Work on the job once its items are in; returns what it did, for the command's line ("" : nothing)."""
        return ""

    def summary(self, job: Job) -> str:
        """Lines the command prints after its own about the job (e.g. a study's plan; "": none)."""
        return ""


class ItemDraw:
    """How a kind serves a job's task items beyond the core's item order (annotate.services.assignment:
    the free item closest to its overlap, then by position): a planned study's budget, stopping rule
    and active sampling. Made by the kind's `draw` for one request for the next item and used inside
    its transaction, so it may keep what it reads for that request. By default it changes nothing."""

    def over(self, *, now: datetime) -> bool:
        """Whether the job serves no more task items now (a budget spent, a ranking settled). Called
        first: lock here what must not change until the reservation is written (e.g. the job's row,
        so that concurrent annotators cannot overshoot a budget)."""
        return False

    def next_task(self, *, worker: Worker, lock: Callable[[list[int]], Item | None]) -> Item | None:
        """The worker's next task item, or None for the core's item order. `lock(ids)` row-locks and
        returns the first free task item among `ids` that this worker may take (None: none)."""
        return None


@dataclass(frozen=True)
class AnnotationKind:
    """One kind of annotation job: a name and where its parts are.

    name: the value of Job.kind and the name on the command line (`create_annotation_job --kind NAME`).
    label: what the admin and the job lists call it.
    overlap: annotators per item when a job gives none.
    screen: the annotator's page, a template extending "annotate/_screen_base.html" (it fills
        `screen_class` and `item`); script: the static path of its ES module, which the shell loads.
    item_view: `for_annotator(item, *, question) -> dict`: the item as the screen gets it from the
        API, never its role, known answer or anyone's votes (`question`: the job's).
    answer_fields: a dict {name: rest_framework Field} of the answer's fields, which the answer API
        accepts (a field two kinds name is declared once, by the first).
    answer: `answer_clean(item, given) -> dict`: the stored answer from the fields given (those not
        None; `report_reason` when not empty); AnnotationError("bad_answer" ...) for anything else.
    score: `score(answer, gold) -> float` in [0, 1]: agreement of an answer with a known one.
    from_campaigns: `items_from_campaigns(*, job, campaigns, include_incomplete, **options) -> int`:
        adds the items of those (existing) campaigns' dialogues that the job lacks; how many.
    report: `report_section(job, answers) -> (section, decisions)`: the report's entries of this kind
        (at least "agreement"; "agreements" when it computes several) from the task answers
        (annotate.selectors.answers.task_answers), and each unit's {annotator: value}, which every
        annotator's agreement with the majority is computed from.
    report_template: the staff report page; a kind's own extends "annotate/report.html".
    report_lines: `lines(report) -> list[str]`: the kind's lines of `annotation_report`'s text.
    charts: `charts(report) -> list[collect.charts.Chart]`: the report page's charts.
    screen_context: `context(job) -> dict`: what the screen's template needs beyond the shell's.
    candidates: `candidate_options(overrides) -> dict`: the job's `candidates` column, checked and
        completed (AnnotationError for a bad one); kinds without candidates keep it empty.
    questions: the questions a job of this kind may ask (Job.question), the first by default.
    options: a JobOptions instance: the kind's options of `create_annotation_job`.
    export: `job_export(job) -> JobExport | None`: how a job exports (None: its annotation report).
    demo: `demo_ensure(*, say) -> None`: the kind's demo job(s) `make run` serves, idempotent.
    urls: a urlpatterns list of the kind's own pages, served under /annotate/ in its namespace.
    draw: `item_draw(job) -> ItemDraw | None`: how a job of this kind that plans a study (the Job
        columns annotate.services.jobs.STUDY_SETTINGS) serves its task items; None when the job asks
        for nothing beyond the core's item order. Only kinds with a draw take the study settings.
    """

    name: str
    label: str
    overlap: int
    screen: str
    script: str
    item_view: str
    answer_fields: str
    answer: str
    score: str
    from_campaigns: str
    report: str
    report_template: str = "annotate/report.html"
    report_lines: str = ""
    charts: str = ""
    screen_context: str = ""
    candidates: str = ""
    questions: tuple[str, ...] = ()
    options: str = ""
    export: str = ""
    demo: str = ""
    urls: str = ""
    draw: str = ""

    def part(self, attribute: str) -> Any:
        """The object a dotted-path attribute names (None when the kind has no such part)."""
        path = getattr(self, attribute)
        return _imported(path) if path else None


_KINDS: dict[str, AnnotationKind] = {}


def kind_register(kind: AnnotationKind) -> None:
    if kind.name in _KINDS:
        raise ValueError(f"annotation kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind


def annotation_kind(name: str) -> AnnotationKind:
    """The kind of that name; ValueError naming the known ones otherwise."""
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown annotation kind {name!r}; known: {', '.join(kind_names())}") from None


def annotation_kinds() -> list[AnnotationKind]:
    """Every kind, in registration (INSTALLED_APPS) order."""
    return list(_KINDS.values())


def kind_names() -> list[str]:
    return list(_KINDS)


def study_kinds() -> list[str]:
    """The kinds whose jobs plan studies (those with a `draw`)."""
    return [kind.name for kind in _KINDS.values() if kind.draw]


def kind_choices() -> list[tuple[str, str]]:
    """Job.kind's choices (a callable: a new kind needs no migration)."""
    return [(kind.name, kind.label) for kind in _KINDS.values()]


def question_choices() -> list[tuple[str, str]]:
    """Job.question's choices: every kind's questions."""
    questions = dict.fromkeys(q for kind in _KINDS.values() for q in kind.questions)
    return [(q, q.capitalize()) for q in questions]


def job_export(job: Job) -> JobExport | None:
    """How `job` exports (its kind's `export`); None: as its annotation report."""
    kind = annotation_kind(job.kind)
    return kind.part("export")(job) if kind.export else None


@cache
def _imported(path: str) -> Any:
    return import_string(path)
