"""Creating jobs and filling them with items, from collected rooms or from parsed files."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable

from django.db import transaction
from django.db.models import Max

from annotate.models import DEFAULT_OVERLAP, Item, ItemMessage, ItemRole, Job, JobKind, PairwiseQuestion
from annotate.services import AnnotationError
from annotate.services.candidates import NO_PASSAGES_USED, candidate_options, relevance_payload
from collect.models import Campaign, Message, Room, RoomStatus

ITEM_NAMESPACE = uuid.UUID("5b0c3f4e-8f5a-4d8e-9a43-6f1d2a7c9e10")
# Dialog-act screens speak Curiosity's roles; WoW's apprentice asks and its wizard knows.
SENDERS = {"apprentice": "user", "wizard": "assistant", "user": "user", "assistant": "assistant"}
_FRACTIONS = ("relevance_threshold", "gold_rate", "qualification_min_score", "review_min_gold_score", "review_min_agreement")


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
    if kind not in JobKind.values:
        raise AnnotationError("bad_kind", f"kind must be one of {', '.join(JobKind.values)}, not {kind!r}")
    if Job.objects.filter(slug=slug).exists():
        raise AnnotationError("job_exists", f"a job called {slug!r} exists already")
    overlap = DEFAULT_OVERLAP[JobKind(kind)] if overlap is None else overlap
    if overlap < 1:
        raise AnnotationError("bad_overlap", "overlap must be at least 1 annotator per item")
    for name_ in _FRACTIONS:
        if name_ in settings and not 0.0 <= float(settings[name_]) <= 1.0:
            raise AnnotationError("bad_setting", f"{name_} must be between 0 and 1, not {settings[name_]}")
    if kind == JobKind.PAIRWISE:
        settings["question"] = settings.get("question") or PairwiseQuestion.ENGAGING
        if settings["question"] not in PairwiseQuestion.values:
            raise AnnotationError("bad_question", f"question must be one of {', '.join(PairwiseQuestion.values)}")
    elif settings.get("question"):
        raise AnnotationError("bad_question", "only pairwise jobs ask a question")
    options = candidate_options(candidates) if kind == JobKind.RELEVANCE else {}
    return Job.objects.create(slug=slug, name=name, kind=kind, overlap=overlap, candidates=options, **settings)


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


def job_items_from_campaigns(
    *, job: Job, campaigns: list[str], include_incomplete: bool = False, least_certain: int | None = None
) -> int:
    """Items for the campaigns' rooms the job lacks; relevance jobs with `least_certain` = n: only
    the n contexts where the live ranker is least certain (annotate/services/active.py)."""
    if least_certain is not None and (job.kind != JobKind.RELEVANCE or least_certain < 1):
        raise AnnotationError("bad_selection", "least-certain selection takes a relevance job and a number of at least 1")
    found = set(Campaign.objects.filter(slug__in=campaigns).values_list("slug", flat=True))
    missing = sorted(set(campaigns) - found)
    if missing:
        raise AnnotationError("no_campaign", f"no campaign with slug: {', '.join(missing)}")
    if job.kind == JobKind.PAIRWISE:
        from annotate.services.pairs import campaign_conversations, pair_specs

        added = items_add(job=job, specs=pair_specs(job, campaign_conversations(sorted(found))))
        job.source = {"campaigns": sorted(set(job.source.get("campaigns", [])) | found)}
        job.save(update_fields=["source"])
        return added
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if include_incomplete else [])
    rooms = Room.objects.filter(campaign__slug__in=campaigns, status__in=statuses).order_by("created", "id")
    build = {JobKind.RELEVANCE: _relevance_specs, JobKind.DUCONV_EVAL: _duconv_spec}.get(job.kind, _dialog_spec)
    specs = (spec for room in rooms.iterator(chunk_size=200) for spec in build(job, room))
    selection: dict[str, Any] = {}
    if least_certain is not None:
        from annotate.services.active import specs_least_certain
        from retrieval.rankers.load import live_ranker, ranker_version

        ranker = live_ranker()
        existing = set(job.items.values_list("key", flat=True))
        specs = iter(specs_least_certain((s for s in specs if s.key not in existing), limit=least_certain, ranker=ranker))
        selection = {"selection": f"least certain by {ranker_version(ranker)}"}
    added = items_add(job=job, specs=specs)
    job.source = {"campaigns": sorted(set(job.source.get("campaigns", [])) | found), **selection}
    job.save(update_fields=["source"])
    return added


def _messages(room: Room) -> list[Message]:
    return list(room.messages.order_by("seq"))


def _relevance_specs(job: Job, room: Room) -> Iterable[ItemSpec]:
    messages = _messages(room)
    if not messages:
        return
    start_speaker = "Human" if SENDERS.get(messages[0].role) == "user" else "Assistant"
    for i, message in enumerate(messages):
        # The context must end on the user's turn that this wizard message answers.
        if message.role != "wizard" or i == 0 or messages[i - 1].role != "apprentice":
            continue
        passage = message.checked_passage or {}
        article = next(iter(passage.values()), None)
        payload = relevance_payload(
            topic=room.topic,
            turns=[m.text for m in messages[:i]],
            start_speaker=start_speaker,
            shown=message.knowledge_shown or [],
            gold_sentence=message.checked_sentence,
            gold_article=None if article == NO_PASSAGES_USED else article,
            options=job.candidates,
        )
        key = str(uuid.uuid5(ITEM_NAMESPACE, f"{room.id}:{message.seq}"))
        yield ItemSpec(key=key, payload={"id": key, **payload}, room_id=room.id, message_id=message.id)


def _dialog_spec(job: Job, room: Room) -> Iterable[ItemSpec]:
    messages = _messages(room)
    if not messages:
        return
    payload = {
        "topic": room.topic,
        # Curiosity rooms carry their two aspects (collect's CuriosityDialog); WoW rooms have none.
        "aspects": list(getattr(getattr(room, "curiosity", None), "aspects", None) or []),
        "messages": [{"sender": SENDERS.get(m.role, m.role), "text": m.text} for m in messages],
    }
    links = [(index, m.id) for index, m in enumerate(messages)]
    yield ItemSpec(key=str(room.id), payload=payload, room_id=room.id, message_links=links)


def _duconv_spec(job: Job, room: Room) -> Iterable[ItemSpec]:
    from annotate.duconv import duconv_payload

    payload = duconv_payload(room)
    if payload is not None:
        yield ItemSpec(key=str(room.id), payload=payload, room_id=room.id)
