"""Creating jobs and filling them with items, from collected rooms or from parsed files. What an
item holds and how it is built is its kind's (annotate.registry); this is what every kind shares."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import models, transaction
from django.db.models import Max

from annotate.models import Item, ItemMessage, ItemRole, Job
from annotate.registry import annotation_kind, annotation_kinds, kind_names, study_kinds
from annotate.services import AnnotationError
from collect.models import Campaign, Message, Room, RoomStatus

# A planned study's columns of the job (annotate.models.Job): only kinds with a `draw` take them.
STUDY_SETTINGS = ("plan", "active_sampling", "stop_when_separated", "max_judgments")


@dataclass
class ItemSpec:
    key: str
    payload: dict[str, Any]
    role: str = ItemRole.TASK
    gold: dict[str, Any] | None = None
    imported_tally: dict[str, Any] | None = None
    room_id: Any = None
    message_id: int | None = None
    message_links: list[tuple[int, int]] = field(default_factory=list)  # (index, collect Message id)


def job_create(
    *, slug: str, name: str, kind: str, overlap: int | None = None, candidates: dict[str, Any] | None = None, **settings: Any
) -> Job:
    """A new job of a registered kind: its overlap, question and candidates completed by the kind.
    AnnotationError for an unknown kind, a taken slug or a bad setting."""
    try:
        declared = annotation_kind(kind)
    except ValueError:
        raise AnnotationError("bad_kind", f"kind must be one of {', '.join(kind_names())}, not {kind!r}") from None
    if Job.objects.filter(slug=slug).exists():
        raise AnnotationError("job_exists", f"a job called {slug!r} exists already")
    overlap = declared.overlap if overlap is None else overlap
    if overlap < 1:
        raise AnnotationError("bad_overlap", "overlap must be at least 1 annotator per item")
    for name_ in _fractions():
        if name_ in settings and not 0.0 <= float(settings[name_]) <= 1.0:
            raise AnnotationError("bad_setting", f"{name_} must be between 0 and 1, not {settings[name_]}")
    if declared.questions:
        settings["question"] = settings.get("question") or declared.questions[0]
        if settings["question"] not in declared.questions:
            raise AnnotationError("bad_question", f"question must be one of {', '.join(declared.questions)}")
    elif settings.get("question"):
        askers = [k.name for k in annotation_kinds() if k.questions]
        raise AnnotationError("bad_question", f"only {' and '.join(askers)} jobs ask a question")
    _study_check(declared.name, {name: value for name, value in settings.items() if name in STUDY_SETTINGS})
    options = declared.part("candidates")(candidates) if declared.candidates else {}
    return Job.objects.create(slug=slug, name=name, kind=kind, overlap=overlap, candidates=options, **settings)


def job_study_set(*, job: Job, **study: Any) -> Job:
    """Set a job's planned study, any of STUDY_SETTINGS: its plan (its kind's power analysis), how
    its task items are drawn and when it stops serving them (its kind's `draw`). AnnotationError for
    a kind without a draw, an unknown setting or a negative budget."""
    unknown = set(study) - set(STUDY_SETTINGS)
    if unknown:
        raise AnnotationError("bad_setting", f"unknown study setting(s): {', '.join(sorted(unknown))}")
    _study_check(job.kind, study)
    for name, value in study.items():
        setattr(job, name, value)
    job.save(update_fields=list(study))
    return job


def _study_check(kind: str, study: dict[str, Any]) -> None:
    given = [name for name in STUDY_SETTINGS if study.get(name)]
    if given and kind not in study_kinds():
        raise AnnotationError("bad_setting", f"only {' and '.join(study_kinds())} jobs take {', '.join(given)}")
    if (study.get("max_judgments") or 0) < 0:
        raise AnnotationError("bad_setting", "max_judgments must be ≥ 0")


def _fractions() -> list[str]:
    """The job's settings that are shares (0–1): its float columns."""
    return [f.name for f in Job._meta.get_fields() if isinstance(f, models.FloatField)]


@transaction.atomic
def items_add(*, job: Job, specs: Iterable[ItemSpec]) -> int:
    """Add items after the job's last one; a key the job already has is skipped (re-runs add only
    new dialogues). Returns how many were added."""
    existing = set(job.items.values_list("key", flat=True))
    start = (job.items.aggregate(last=Max("position"))["last"] or 0) + 1
    new: list[ItemSpec] = []
    for spec in specs:
        if spec.key not in existing:
            existing.add(spec.key)
            new.append(spec)
    items = Item.objects.bulk_create(
        Item(
            job=job,
            key=spec.key,
            role=spec.role,
            position=start + n,
            payload=spec.payload,
            gold=spec.gold,
            imported_tally=spec.imported_tally,
            room_id=spec.room_id,
            message_id=spec.message_id,
        )
        for n, spec in enumerate(new)
    )
    links = [
        ItemMessage(item=item, index=index, message_id=message_id)
        for item, spec in zip(items, new)
        for index, message_id in spec.message_links
    ]
    ItemMessage.objects.bulk_create(links)
    return len(items)


def job_items_from_campaigns(*, job: Job, campaigns: list[str], include_incomplete: bool = False, **options: Any) -> int:
    """Items for the campaigns' dialogues the job lacks, built by the job's kind (its
    `from_campaigns`; `options` are the kind's own, e.g. a selection); how many were added."""
    kind = annotation_kind(job.kind)
    found = set(Campaign.objects.filter(slug__in=campaigns).values_list("slug", flat=True))
    missing = sorted(set(campaigns) - found)
    if missing:
        raise AnnotationError("no_campaign", f"no campaign with slug: {', '.join(missing)}")
    if not kind.from_campaigns:
        raise AnnotationError("bad_kind", f"{kind.name} jobs are not built from campaigns")
    return kind.part("from_campaigns")(job=job, campaigns=sorted(found), include_incomplete=include_incomplete, **options)


def rooms_items_add(
    *,
    job: Job,
    campaigns: list[str],
    include_incomplete: bool,
    specs_of: Callable[[Job, Room], Iterable[ItemSpec]],
    select: Callable[[Iterable[ItemSpec]], tuple[Iterable[ItemSpec], dict[str, Any]]] | None = None,
) -> int:
    """A kind's `from_campaigns` over collected rooms: the specs `specs_of(job, room)` gives for each
    complete room (and incomplete ones with `include_incomplete`), in creation order, optionally
    narrowed by `select(specs) -> (specs, note)`, whose note the job's `source` keeps beside its
    campaigns. Returns how many items were added."""
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if include_incomplete else [])
    rooms = Room.objects.filter(campaign__slug__in=campaigns, status__in=statuses).order_by("created", "id")
    specs: Iterable[ItemSpec] = (spec for room in rooms.iterator(chunk_size=200) for spec in specs_of(job, room))
    selection: dict[str, Any] = {}
    if select is not None:
        specs, selection = select(specs)
    added = items_add(job=job, specs=specs)
    job.source = {"campaigns": sorted(set(job.source.get("campaigns", [])) | set(campaigns)), **selection}
    job.save(update_fields=["source"])
    return added


def room_messages(room: Room) -> list[Message]:
    """A room's messages in their order."""
    return list(room.messages.order_by("seq"))
