"""Import a Topical-Chat conversations file (`conversations/<split>.json` of the release, or of an
export) as complete rooms of an inactive Topical-Chat campaign, with its reading sets when they lie
where the release keeps them: `../reading_sets/post-build/<same name>` (the texts), else
`../reading_sets/pre-build/<same name>` (the release as shipped: ids of Wikipedia texts and Reddit
threads). Every value is kept as read, in the file's order, so that `export_dataset topical_chat`
writes both files back byte for byte (files.py); the keys are the release's and no others.

The split is the given one (`--split`), else the one the file name names (`valid_freq.json`); a
name that names none is refused unless `--split hash` asks each export to draw it. Anything out of
place stops the import with the conversation, turn and field at fault, and nothing is stored:
a key missing or unknown, a value of another type or outside the release's values (release.py),
a lone surrogate or a NUL, a key twice in one object, a reading set that is not the
conversation's (another id, configuration or URL)."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from pathlib import Path
from typing import Any

from django.db import transaction

from collect.importers import split_chosen
from collect.models import Assignment, AssignmentStatus, Campaign, Message, Room, RoomStatus, Worker
from collect.tasktypes.topical_chat import NAME
from collect.tasktypes.topical_chat.files import CONVERSATIONS, READING_SETS
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from collect.tasktypes.topical_chat.release import (
    AGENTS,
    CONFIGS,
    KNOWLEDGE_SOURCES,
    NO_RATING,
    POST_BUILD,
    PRE_BUILD,
    RATINGS,
    SENTIMENTS,
    SPLITS,
    WIKI_FIELDS,
)
from groundwork.surrogates import lone_surrogate
from retrieval.models import KnowledgeSource

PLATFORM = "topical_chat"
CONVERSATION_KEYS = ("article_url", "config", "content", "conversation_rating")
TURN_KEYS = ("message", "agent", "sentiment", "knowledge_source", "turn_rating")
SET_KEYS = {POST_BUILD: ("config", "agent_1", "agent_2", "article"), PRE_BUILD: ("article_url", "config", "agent_1", "agent_2")}
SPLIT_IN_NAME = re.compile(r"(?:^|[^a-z])(train|valid_freq|valid_rare|test_freq|test_rare)(?:[^a-z]|$)")


class TopicalChatImportError(ValueError):
    """The file cannot be imported; says where and why. Nothing was written."""


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    """The `import_dataset topical_chat FILE [--job SLUG] [--split SPLIT]` entry (--job names the campaign)."""
    if not path.is_file():
        raise TopicalChatImportError(f"{path}: no such file")
    return topical_chat_import(path=path, campaign=options.get("job") or "", split=options.get("split"))


def reading_sets_beside(path: Path) -> tuple[Path, str] | None:
    """The reading sets file of a conversations file, and its build, where the release keeps it."""
    root = path.resolve().parent.parent
    for build in (POST_BUILD, PRE_BUILD):
        candidate = root / READING_SETS / build / path.name
        if candidate.is_file():
            return candidate, build
    return None


def topical_chat_import(*, path: Path, campaign: str = "", split: str | None = None) -> dict[str, Any]:
    split = split_chosen(path=path, given=split, splits=SPLITS, name=SPLIT_IN_NAME, fail=TopicalChatImportError,
                         named=", ".join(SPLITS), items="conversations")
    data = path.read_bytes()
    conversations = _object_of(data, path)
    if not conversations:
        raise TopicalChatImportError(f"{path}: no conversations")
    parsed = [_conversation(key, value) for key, value in conversations.items()]
    beside = reading_sets_beside(path) if path.parent.name == CONVERSATIONS else None
    sets: dict[str, dict[str, Any]] = {}
    if beside is not None:
        sets = _reading_sets(beside[0], beside[1], parsed)
    slug = campaign or f"topical-chat-import-{hashlib.sha256(data).hexdigest()[:10]}"
    with transaction.atomic():
        if Campaign.objects.filter(slug=slug).exists():
            raise TopicalChatImportError(f"campaign {slug!r} already exists: this file was imported before")
        source, _ = KnowledgeSource.objects.get_or_create(slug=slug, defaults={"name": f"Topical-Chat import of {path.name}"})
        target = Campaign.objects.create(
            slug=slug, name=f"Topical-Chat import {path.name}", protocol=NAME, is_active=False,
            knowledge_source=source, min_turns=1, max_turns=1, turn_limit=100,
        )
        counts = _store(target, parsed, sets, split=split)
    return {
        "campaign": slug,
        "split": split or "(by hash at export, as asked)",
        "conversations": len(parsed),
        "messages": counts,
        "reading sets": f"{beside[1]} ({beside[0]})" if beside else "none beside the file (conversations only)",
    }


def _store(target: Campaign, parsed: list[dict[str, Any]], sets: dict[str, dict[str, Any]], *, split: str) -> int:
    workers = {agent: Worker.objects.get_or_create(platform=PLATFORM, external_id=agent)[0] for agent in AGENTS}
    rooms, rows, seats, messages, turns = [], [], [], [], []
    for position, c in enumerate(parsed):
        reading_set = sets.get(c["id"])
        room = Room(id=uuid.uuid4(), campaign=target, status=RoomStatus.COMPLETE, first_speaker=c["content"][0]["agent"],
                    turns_required=0, topic=(reading_set or {}).get("headline", "")[:300], end_reason="imported")
        rooms.append(room)
        rows.append(TopicalConversation(
            room=room, conversation_id=c["id"], config=c["config"], article_url=c["article_url"],
            reading_sets=(reading_set or {}).get("agents", {}), article=(reading_set or {}).get("article", []),
            reading_set_build=(reading_set or {}).get("build", ""), split=split, position=position,
            rating_agent_1=c["conversation_rating"]["agent_1"], rating_agent_2=c["conversation_rating"]["agent_2"],
        ))
        seat = {agent: Assignment(campaign=target, worker=workers[agent], status=AssignmentStatus.PAIRED, room=room, role=agent)
                for agent in AGENTS}
        seats += seat.values()
        for seq, turn in enumerate(c["content"], start=1):
            messages.append(Message(room=room, seq=seq, sender=seat[turn["agent"]], role=turn["agent"],
                                    client_id=f"import-{seq}", text=turn["message"]))
            turns.append(TopicalTurn(room=room, seq=seq, knowledge_source=turn["knowledge_source"],
                                     sentiment=turn["sentiment"], turn_rating=turn["turn_rating"]))
    Room.objects.bulk_create(rooms)
    TopicalConversation.objects.bulk_create(rows)
    Assignment.objects.bulk_create(seats)
    Message.objects.bulk_create(messages, batch_size=2000)
    TopicalTurn.objects.bulk_create(turns, batch_size=2000)
    return len(messages)


# --- reading the files -----------------------------------------------------------------------------

def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        twice = next(k for k in keys if keys.count(k) > 1)
        raise TopicalChatImportError(f"the key {twice!r} appears twice in one object")
    return dict(pairs)


def _object_of(data: bytes, path: Path) -> dict[str, Any]:
    try:
        value = json.loads(data, object_pairs_hook=_unique_keys)
    except UnicodeDecodeError:
        raise TopicalChatImportError(f"{path}: not valid UTF-8") from None
    except json.JSONDecodeError as error:
        raise TopicalChatImportError(f"{path}: invalid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except TopicalChatImportError as error:
        raise TopicalChatImportError(f"{path}: {error}") from None
    if not isinstance(value, dict):
        raise TopicalChatImportError(f"{path}: expected a JSON object of conversations by id, got {type(value).__name__}")
    if (found := lone_surrogate(value)) is not None:
        where = f"conversation {found.path[0]!r}, {found.problem(start=1)}" if len(found.path) > 1 else found.problem()
        raise TopicalChatImportError(f"{path}: {where}")
    return value


def _keys(where: str, value: Any, keys: tuple[str, ...]) -> None:
    if not isinstance(value, dict):
        raise TopicalChatImportError(f"{where}: expected an object with {', '.join(keys)}, got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise TopicalChatImportError(f"{where}: missing {', '.join(repr(k) for k in missing)}")
    unknown = [k for k in value if k not in keys]
    if unknown:
        raise TopicalChatImportError(f"{where}: unknown key {unknown[0]!r} (the release's keys: {', '.join(keys)})")


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TopicalChatImportError(f"{where}: expected a string, got {type(value).__name__}")
    if "\x00" in value:
        raise TopicalChatImportError(f"{where}: holds a NUL character, which the database cannot store")
    return value


def _one_of(where: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed or not isinstance(value, str):
        raise TopicalChatImportError(f"{where}: {value!r} is not one of {', '.join(repr(a) for a in allowed)}")
    return value


def _conversation(key: str, value: Any) -> dict[str, Any]:
    where = f"conversation {key!r}"
    _text(where + " (its id)", key)
    _keys(where, value, CONVERSATION_KEYS)
    _text(f"{where}, article_url", value["article_url"])
    _one_of(f"{where}, config", value["config"], CONFIGS)
    content = value["content"]
    if not isinstance(content, list) or not content:
        raise TopicalChatImportError(f"{where}, content: expected a non-empty list of turns")
    for n, turn in enumerate(content):
        at = f"{where}, content[{n}]"
        _keys(at, turn, TURN_KEYS)
        _text(f"{at}.message", turn["message"])
        _one_of(f"{at}.agent", turn["agent"], AGENTS)
        _one_of(f"{at}.sentiment", turn["sentiment"], SENTIMENTS)
        sources = turn["knowledge_source"]
        if not isinstance(sources, list):
            raise TopicalChatImportError(f"{at}.knowledge_source: expected a list of reading-set keys")
        for i, source in enumerate(sources):
            _one_of(f"{at}.knowledge_source[{i}]", source, KNOWLEDGE_SOURCES)
        _one_of(f"{at}.turn_rating", turn["turn_rating"], (*RATINGS, NO_RATING))
    ratings = value["conversation_rating"]
    _keys(f"{where}, conversation_rating", ratings, AGENTS)
    for agent in AGENTS:
        _one_of(f"{where}, conversation_rating.{agent}", ratings[agent], (*RATINGS, NO_RATING))
    return {"id": key, **value}


def _reading_sets(path: Path, build: str, parsed: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each conversation's reading sets from `path`, as TopicalConversation keeps them; the file must
    hold exactly the conversations' ids, in their order."""
    sets = _object_of(path.read_bytes(), path)
    ids = [c["id"] for c in parsed]
    if list(sets) != ids:
        extra = [k for k in sets if k not in set(ids)]
        missing = [k for k in ids if k not in sets]
        what = (f"has no reading set for conversation {missing[0]!r}" if missing else
                f"has a reading set for {extra[0]!r}, which is not in the conversations file" if extra else
                "lists the conversations in another order than the conversations file")
        raise TopicalChatImportError(f"{path}: {what}")
    by_id = {c["id"]: c for c in parsed}
    return {key: _reading_set(f"{path.name}: conversation {key!r}", value, build, by_id[key]) for key, value in sets.items()}


def _reading_set(where: str, value: Any, build: str, conversation: dict[str, Any]) -> dict[str, Any]:
    _keys(where, value, SET_KEYS[build])
    if value["config"] != conversation["config"]:
        raise TopicalChatImportError(f"{where}, config: {value['config']!r}, but the conversation's is {conversation['config']!r}")
    if build == PRE_BUILD and value["article_url"] != conversation["article_url"]:
        raise TopicalChatImportError(f"{where}, article_url: not the conversation's")
    agents = {agent: _entries(f"{where}, {agent}", value[agent], build) for agent in AGENTS}
    article: list[list[Any]] = []
    headline = ""
    if build == POST_BUILD:
        if not isinstance(value["article"], dict):
            raise TopicalChatImportError(f"{where}, article: expected an object (url, headline, AS1…)")
        for key, text in value["article"].items():
            article.append([key, _text(f"{where}, article.{key}", text)])
        headline = value["article"].get("headline", "")
    return {"build": build, "agents": agents, "article": article, "headline": headline}


def _entries(where: str, value: Any, build: str) -> list[dict[str, Any]]:
    if not isinstance(value, dict):
        raise TopicalChatImportError(f"{where}: expected an object of factual sections (FS1, FS2, …)")
    entries = []
    for key, section in value.items():
        at = f"{where}.{key}"
        wiki = [f for f in WIKI_FIELDS if isinstance(section, dict) and f in section]
        if len(wiki) != 1:
            raise TopicalChatImportError(f"{at}: expected one of {' or '.join(WIKI_FIELDS)}")
        _keys(at, section, ("entity", wiki[0], "fun_facts"))
        if list(section) != ["entity", wiki[0], "fun_facts"]:
            raise TopicalChatImportError(f"{at}: keys in another order than the release's (entity, {wiki[0]}, fun_facts)")
        text = section[wiki[0]]
        if build == PRE_BUILD:
            if not isinstance(text, int) or isinstance(text, bool):
                raise TopicalChatImportError(f"{at}.{wiki[0]}: expected the id of a Wikipedia text (a whole number)")
        else:
            _text(f"{at}.{wiki[0]}", text)
        facts = section["fun_facts"]
        if not isinstance(facts, list):
            raise TopicalChatImportError(f"{at}.fun_facts: expected a list")
        for i, fact in enumerate(facts):
            _text(f"{at}.fun_facts[{i}]", fact)
        entries.append({"key": key, "entity": _text(f"{at}.entity", section["entity"]), "wiki_field": wiki[0],
                        "wiki": text, "fun_facts": facts})
    return entries
