"""Authenticity signals of a room's human turns, computed off the chat path (a Celery task when
the room ends, and the review page for any room still owed them): evidence for the reviewer,
never an automatic rejection (docs/authenticity.md).

Per turn (seq): knowledge_copy (the turn holds a whole sentence of the knowledge it was shown, or
the page saw a paste from its knowledge pane), paste_outside (pasted text found nowhere on the
page: another tab, an LLM), typing_speed (characters typed one key at a time faster than
settings.AUTHENTICITY_MAX_CHARS_PER_SECOND over the turn's active typing time), repeated_text (the
same text in another of the worker's dialogues), record_missing (the page sent no valid record),
checked_unused (the turn checked a knowledge sentence and shares none of its content words: a reply
not grounded in what it claims, the failure Dziri et al. 2022 found in over 60% of WoW's turns).
Per seat (seq null): shared_browser (other worker ids entered from this worker's browser, by the
first-party browser cookie gw_browser) and shared_address (other worker ids sent messages from
the same client address, behind the trusted proxies).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from collect.authenticity.policy import copied_sentence, knowledge_sentences, words
from collect.models import Assignment, Message, Room, Worker
from collect.models_authenticity import AuthenticityFlag, FlagKind, SignalsRun
from retrieval.words import content_terms

# Fewer typed characters than this say nothing about speed (a one-word answer typed in a burst).
MIN_SPEED_CHARS = 20
# A paste from outside the page this long (characters), or this share of the message, is flagged.
PASTE_MIN_CHARS = 20
PASTE_MIN_SHARE = 0.3
# Texts shorter than this many words repeat innocently ("yes, I agree!").
REPEAT_MIN_WORDS = 5
# A checked sentence with fewer content terms than this (a marker such as WoW's
# "no_passages_used", a fragment) says too little for its absence from the reply to mean anything.
UNUSED_MIN_TERMS = 3


def checked_unused(message: Message, *, language: str = "en") -> dict[str, Any] | None:
    """The evidence that a turn checked a knowledge sentence whose content terms
    (retrieval.words.content_terms: stemmed, without stop and chat words; jieba's words in Chinese)
    none appear in the reply, or None: {"sentence": str, "sentence_terms": int}. Only sentences of
    at least UNUSED_MIN_TERMS terms count; a turn that checked several is flagged when it uses none."""
    checked = message.checked_sentence
    values = checked.values() if isinstance(checked, dict) else [checked] if isinstance(checked, str) else []
    sentences = [(s, terms) for s in values if isinstance(s, str) and len(terms := content_terms(s, language)) >= UNUSED_MIN_TERMS]
    if not sentences:
        return None
    said = content_terms(message.text, language)
    if any(terms & said for _, terms in sentences):
        return None
    sentence, terms = sentences[0]
    return {"sentence": sentence, "sentence_terms": len(terms)}


def turn_flags(message: Message, *, topic_passage: Any = None, language: str = "en") -> list[tuple[str, dict[str, Any]]]:
    """The (kind, evidence) of one human turn's own signals (not those comparing it with others);
    `language`: the knowledge's (KnowledgeSource.language), for checked_unused's words."""
    found: list[tuple[str, dict[str, Any]]] = []
    unused = checked_unused(message, language=language)
    if unused is not None:
        found.append((FlagKind.CHECKED_UNUSED, unused))
    record = message.authenticity or {}
    client = record.get("client") if isinstance(record, dict) else None
    if not record or record.get("client_status") != "ok" or not isinstance(client, dict):
        found.append((FlagKind.RECORD_MISSING, {
            "status": record.get("client_status", "absent") if record else "absent",
            "reason": record.get("reason", "no record stored") if record else "no record stored",
        }))
        client = {}
    paste = client.get("paste", {})
    sentence = copied_sentence(message.text, knowledge_sentences(
        *(v for v in (message.knowledge_shown, message.checked_sentence, topic_passage) if v)
    ))
    pasted_knowledge = paste.get("knowledge", {}).get("chars", 0)
    if sentence is not None or pasted_knowledge >= PASTE_MIN_CHARS:
        found.append((FlagKind.KNOWLEDGE_COPY, {"sentence": sentence, "pasted_knowledge_chars": pasted_knowledge}))
    outside = paste.get("outside", {})
    pasted, chars = outside.get("chars", 0), len(message.text)
    if pasted >= PASTE_MIN_CHARS or (pasted >= 5 and pasted >= PASTE_MIN_SHARE * chars):
        found.append((FlagKind.PASTE_OUTSIDE, {"pasted_chars": pasted, "pastes": outside.get("count", 0), "message_chars": chars}))
    typed, typing_ms = client.get("typed_chars", 0), client.get("typing_ms", 0)
    if typed >= MIN_SPEED_CHARS and typing_ms > 0:
        speed = typed / (typing_ms / 1000)
        if speed > settings.AUTHENTICITY_MAX_CHARS_PER_SECOND:
            found.append((FlagKind.TYPING_SPEED, {
                "chars_per_second": round(speed, 1), "typed_chars": typed, "typing_ms": typing_ms,
                "threshold": settings.AUTHENTICITY_MAX_CHARS_PER_SECOND,
            }))
    return found


def _normalized(text: str) -> str:
    return " ".join(words(text))


def _repeats(seat: Assignment, messages: list[Message]) -> dict[int, dict[str, Any]]:
    """seq → evidence, for this seat's turns whose text the worker also sent in another room."""
    mine = {_normalized(m.text): m.seq for m in messages if len(words(m.text)) >= REPEAT_MIN_WORDS}
    if not mine:
        return {}
    found: dict[int, dict[str, Any]] = {}
    others = Message.objects.filter(sender__worker_id=seat.worker_id).exclude(room_id=seat.room_id).values_list("room_id", "seq", "text")
    for room_id, seq, text in others.iterator():
        key = _normalized(text)
        if key in mine and mine[key] not in found:
            found[mine[key]] = {"other_room": str(room_id), "other_seq": seq}
    return found


def _shared_browser(worker: Worker) -> list[str]:
    if not worker.browser:
        return []
    return sorted(Worker.objects.filter(browser=worker.browser).exclude(pk=worker.pk).values_list("pseudonym", flat=True))


def _shared_address(seat: Assignment, messages: list[Message]) -> tuple[list[str], str]:
    keys = {m.authenticity["server"].get("address") for m in messages if isinstance(m.authenticity, dict) and m.authenticity.get("server")}
    keys.discard("")
    keys.discard(None)
    for key in sorted(keys):
        others = (
            Message.objects.filter(authenticity__server__address=key).exclude(sender__worker_id=seat.worker_id)
            .values_list("sender__worker__pseudonym", flat=True).distinct()
        )
        names = sorted(set(others))
        if names:
            return names, key
    return [], ""


def room_signals_compute(*, room_id: Any) -> list[AuthenticityFlag]:
    """Compute and store the signals of one room's human turns, replacing any stored before
    (idempotent: a task run twice stores the same flags once)."""
    room = Room.objects.select_related("campaign__knowledge_source").get(pk=room_id)
    language = room.campaign.knowledge_source.language
    seats = list(Assignment.objects.humans().filter(room=room).select_related("worker"))
    messages = list(room.messages.order_by("seq"))
    flags: list[AuthenticityFlag] = []
    for seat in seats:
        own = [m for m in messages if m.sender_id == seat.pk]
        for message in own:
            for kind, evidence in turn_flags(message, topic_passage=room.topic_passage, language=language):
                flags.append(AuthenticityFlag(assignment=seat, room=room, seq=message.seq, kind=kind, evidence=evidence))
        for seq, evidence in sorted(_repeats(seat, own).items()):
            flags.append(AuthenticityFlag(assignment=seat, room=room, seq=seq, kind=FlagKind.REPEATED_TEXT, evidence=evidence))
        browsers = _shared_browser(seat.worker)
        if browsers:
            flags.append(AuthenticityFlag(assignment=seat, room=room, kind=FlagKind.SHARED_BROWSER, evidence={"other_workers": browsers}))
        addresses, key = _shared_address(seat, own)
        if addresses:
            flags.append(AuthenticityFlag(assignment=seat, room=room, kind=FlagKind.SHARED_ADDRESS, evidence={"other_workers": addresses, "address_key": key}))
    shared = [flag for flag in flags if flag.kind in (FlagKind.SHARED_BROWSER, FlagKind.SHARED_ADDRESS)]
    with transaction.atomic():
        AuthenticityFlag.objects.filter(room=room).exclude(kind=FlagKind.LLM_LIKE).delete()
        AuthenticityFlag.objects.bulk_create(flags)
        AuthenticityFlag.objects.bulk_create(_earlier_seats_flags(room, shared))
        SignalsRun.objects.update_or_create(room=room)
    return flags


def _earlier_seats_flags(room: Room, shared: list[AuthenticityFlag]) -> list[AuthenticityFlag]:
    """The seat flags a worker's earlier rooms lack: a person's first worker id ended its room (its
    signals computed) before the second id existed, so only the later rooms would say the two share a
    browser or an address. Each earlier room's seat of the other workers named here, computed
    already and without that kind of flag, gets it now, with its own evidence."""
    out: list[AuthenticityFlag] = []
    for flag in shared:
        others = (
            Assignment.objects.humans().filter(worker__pseudonym__in=flag.evidence["other_workers"], room__signals_run__isnull=False)
            .exclude(room=room).exclude(authenticity_flags__kind=flag.kind).select_related("worker")
        )
        for seat in others:
            if flag.kind == FlagKind.SHARED_BROWSER:
                names, evidence = _shared_browser(seat.worker), {}
            else:
                names, key = _shared_address(seat, list(Message.objects.filter(sender=seat)))
                evidence = {"address_key": key}
            if names:
                out.append(AuthenticityFlag(assignment=seat, room_id=seat.room_id, kind=flag.kind, evidence={"other_workers": names, **evidence}))
    return out


def signals_owed(*, campaign_id: int, limit: int = 200) -> int:
    """Compute the signals of the campaign's ended rooms that have none yet (a task lost with a
    worker, rooms from before this feature): what the review page calls. Returns how many."""
    from collect.models import RoomStatus

    owed = list(
        Room.objects.filter(campaign_id=campaign_id, status__in=(RoomStatus.COMPLETE, RoomStatus.INCOMPLETE, RoomStatus.RATING))
        .filter(signals_run__isnull=True).values_list("pk", flat=True)[:limit]
    )
    for room_id in owed:
        room_signals_compute(room_id=room_id)
    return len(owed)
