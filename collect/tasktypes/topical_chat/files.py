"""The release's files: where they lie, how they are written, and one record of each as a dict.

Every released file is `json.dumps(data, indent=2)` of one object: two-space indent, ", " never
at a line's end, non-ASCII written as \\u escapes, no newline at the end (the release's
conversations and reading sets were checked byte for byte against this). `ObjectFiles` writes that
one key at a time, so that an export's memory stays flat however many conversations it holds.

    <out>/conversations/<split>.json
    <out>/reading_sets/post-build/<split>.json   (pre-build/ beside it for imported pre-build sets)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from collect.tasktypes.topical_chat.release import AGENTS, PRE_BUILD

CONVERSATIONS = "conversations"
READING_SETS = "reading_sets"
INDENT = 2


def conversations_path(root: Path, split: str) -> Path:
    return root / CONVERSATIONS / f"{split}.json"


def reading_sets_path(root: Path, split: str, build: str) -> Path:
    return root / READING_SETS / build / f"{split}.json"


def json_text(value: Any) -> str:
    """A value as the release writes it (json.dumps with indent=2, ASCII only)."""
    return json.dumps(value, indent=INDENT)


class ObjectFiles:
    """JSON object files written one member at a time, exactly as `json_text` writes the whole
    object; each goes to a hidden temporary file beside its place and is renamed into place only
    when every file has been written, so a failed export leaves the earlier files as they were."""

    def __init__(self, paths: list[Path]) -> None:
        self.counts = {path: 0 for path in paths}
        self._temps: dict[Path, Path] = {}
        self._handles: dict[Path, IO[str]] = {}

    def __enter__(self) -> ObjectFiles:
        try:
            for path in self.counts:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._temps[path] = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                self._handles[path] = self._temps[path].open("w", encoding="ascii", newline="\n")
                self._handles[path].write("{")
        except BaseException:
            self._discard()
            raise
        return self

    def write(self, path: Path, key: str, value: Any) -> None:
        nested = json_text(value).replace("\n", "\n" + " " * INDENT)  # JSON strings hold no raw newline
        self._handles[path].write(f"{',' if self.counts[path] else ''}\n{' ' * INDENT}{json.dumps(key)}: {nested}")
        self.counts[path] += 1

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc_type is not None:
            self._discard()
            return
        try:
            for path, handle in self._handles.items():
                handle.write("\n}" if self.counts[path] else "}")
                handle.close()
        except BaseException:
            self._discard()
            raise
        for path, temp in self._temps.items():
            os.replace(temp, path)

    def _discard(self) -> None:
        for handle in self._handles.values():
            handle.close()
        for temp in self._temps.values():
            temp.unlink(missing_ok=True)


def conversation_record(conversation: TopicalConversation, messages: list[tuple[str, str]], turns: dict[int, TopicalTurn]) -> dict[str, Any]:
    """A conversations/*.json value: `messages` are (text, agent) in seq order from 1; `turns`
    their TopicalTurns by seq (a message without one exports with no marks and no rating)."""
    content = []
    for seq, (text, agent) in enumerate(messages, start=1):
        turn = turns.get(seq)
        content.append({
            "message": text,
            "agent": agent,
            "sentiment": turn.sentiment if turn else "",
            "knowledge_source": list(turn.knowledge_source) if turn else [],
            "turn_rating": turn.turn_rating if turn else "",
        })
    return {
        "article_url": conversation.article_url,
        "config": conversation.config,
        "content": content,
        "conversation_rating": {agent: conversation.rating_of(agent) for agent in AGENTS},
    }


def reading_set_record(conversation: TopicalConversation) -> dict[str, Any]:
    """A reading_sets/<build>/*.json value, in the key order of that build's files."""
    agents = {
        agent: {e["key"]: {"entity": e["entity"], e["wiki_field"]: e["wiki"], "fun_facts": e["fun_facts"]}
                for e in conversation.reading_sets.get(agent, [])}
        for agent in AGENTS
    }
    if conversation.reading_set_build == PRE_BUILD:
        return {"article_url": conversation.article_url, "config": conversation.config, **agents}
    return {"config": conversation.config, **agents, "article": {key: value for key, value in conversation.article}}
