"""The export framework: what every dataset exporter shares (options, hash-based splits, streamed
files) and `export_dataset`, which finds a dataset's exporter in collect.registry.

An exporter is a function `export(out_dir, options) -> ExportResult` that writes a dataset's
original files (docs/schemas.md); the task type or annotation kind that owns the dataset registers it.
"""

from __future__ import annotations

import hashlib
import json
import os
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Callable, Iterable

from collect import registry


# Called once per item written, where someone watches an export's progress (the browser exports).
export_progress: ContextVar[Callable[[], None] | None] = ContextVar("export_progress", default=None)


def export_progress_tick() -> None:
    callback = export_progress.get()
    if callback is not None:
        callback()


class ExportError(Exception):
    """A request the exporter cannot serve (unknown dataset or campaign, bad data); says why."""


@dataclass(frozen=True)
class ExportOptions:
    campaigns: tuple[str, ...] = ()  # campaign slugs; empty = every campaign of the dataset's task type
    include_incomplete: bool = False
    include_partial: bool = False  # annotation exports (wowpp): also items short of their votes, marked
    seed: int = 0
    holdout_topics: float = 0.10  # share of topics held out entirely (unseen valid/test), split evenly
    valid: float = 0.05  # share of the remaining dialogues in the seen-topic valid split
    test: float = 0.05  # ... and in the seen-topic test split
    chunk_size: int = 500  # rooms read per query
    job: str = ""  # annotation job slug, for datasets exported from annotation jobs (wowpp)
    samples: bool = False  # DuConv: test-format samples (one per agent turn) instead of sessions
    segment: bool = False  # DuConv: write collected utterances word-segmented (jieba)
    # Each human turn also carries an `authenticity` object (turn_authenticity; docs/schemas.md).
    # Off by default: the original schemas stay byte-identical.
    authenticity: bool = False

    def __post_init__(self) -> None:
        for name in ("holdout_topics", "valid", "test"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ExportError(f"{name} must be a fraction between 0 and 1, not {value}")
        if self.valid + self.test > 1.0:
            raise ExportError(f"valid + test must be at most 1, not {self.valid + self.test}")
        if self.chunk_size < 1:
            raise ExportError(f"chunk_size must be at least 1, not {self.chunk_size}")


@dataclass
class ExportResult:
    counts: dict[str, int]  # file name -> dialogues written, in the dataset's file order
    skipped_empty: int = 0  # rooms without a single message: loaders index dialog[0], so left out
    notes: list[str] = field(default_factory=list)  # what a researcher must know about the files written

    @property
    def total(self) -> int:
        return sum(self.counts.values())


Exporter = Callable[[Path, ExportOptions], ExportResult]


def export_dataset(name: str, out_dir: Path | str, options: ExportOptions | None = None) -> ExportResult:
    """Write dataset `name` into `out_dir`; ExportError for a dataset nobody exports, or one the
    exporter refuses (it says why)."""
    exporter: Exporter | None = None
    try:
        exporter = registry.dataset(name).exporter()
    except ValueError:
        pass
    if exporter is None:
        raise ExportError(f"unknown dataset {name!r}; choose one of: {', '.join(exported_datasets())}")
    options = options or ExportOptions()
    if options.authenticity and not registry.dataset_carries_authenticity(name):
        raise ExportError(f"the {name} export does not carry authenticity objects (docs/authenticity.md)")
    return exporter(Path(out_dir), options)


def exported_datasets() -> list[str]:
    """The names `export_dataset` accepts."""
    return registry.dataset_names(exported=True)


def stable_fraction(seed: int, kind: str, value: str) -> float:
    """A number in [0, 1) fixed by (seed, kind, value) alone: the same item keeps its split on every
    export, however much data is added, and different kinds (topic, room) draw independently."""
    digest = hashlib.sha256(f"{seed}\x1f{kind}\x1f{value}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class JsonListFiles:
    """Several JSON-list files written one item at a time, renamed into place only on success.

    Items are serialised as they arrive, so memory stays flat however many there are; until the
    end they go to hidden temporary files in the same folder, so a failed export leaves the
    previous files untouched and never a half-written one.
    """

    def __init__(
        self, out_dir: Path, names: Iterable[str], *, head: str | dict[str, str] = "[", tail: str | dict[str, str] = "\n]\n"
    ) -> None:
        """`head` and `tail` enclose the items: a bare list by default, or a list inside an object
        (Curiosity's `{"dialogs": [...], "db_checksum": ...}`); one for every file, or one per file name."""
        self.out_dir = out_dir
        self.counts: dict[str, int] = {name: 0 for name in names}
        self.heads = head if isinstance(head, dict) else dict.fromkeys(self.counts, head)
        self.tails = tail if isinstance(tail, dict) else dict.fromkeys(self.counts, tail)
        self._temps: dict[str, Path] = {}
        self._handles: dict[str, IO[str]] = {}
        # ensure_ascii: a pure-ASCII file reads the same whatever locale the loader runs under.
        self._encoder = json.JSONEncoder(ensure_ascii=True, separators=(", ", ": "))

    def __enter__(self) -> JsonListFiles:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        try:
            for name in self.counts:
                temp = self.out_dir / f".{name}.{os.getpid()}.tmp"
                self._temps[name] = temp
                self._handles[name] = temp.open("w", encoding="utf-8")
                self._handles[name].write(self.heads[name])
        except BaseException:
            self._discard()
            raise
        return self

    def write(self, name: str, item: Any, *, counted: bool = True) -> None:
        """`counted=False`: an item another file also holds, left out of the export's progress."""
        handle = self._handles[name]
        handle.write(",\n" if self.counts[name] else "\n")
        handle.write(self._encoder.encode(item))
        self.counts[name] += 1
        if counted:
            export_progress_tick()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None:
            self._discard()
            return
        try:
            for name, handle in self._handles.items():
                handle.write(self.tails[name])
                handle.close()
        except BaseException:
            self._discard()
            raise
        for name, temp in self._temps.items():
            os.replace(temp, self.out_dir / name)

    def _discard(self) -> None:
        for handle in self._handles.values():
            handle.close()
        for temp in self._temps.values():
            temp.unlink(missing_ok=True)


# The version of the exported `authenticity` object (docs/schemas.md); raised on any change of its keys.
AUTHENTICITY_EXPORT_VERSION = 2
_RECORD_KEYS = ("compose_ms", "typing_ms", "typed_chars", "inserted_chars", "hidden_ms", "panel_ms", "compositions")


def turn_authenticity(stored: Any, flags: Iterable[str] = ()) -> dict[str, Any] | None:
    """The exported `authenticity` object of one turn, from its stored record
    (Message.authenticity, collect/authenticity/record.py) and the kinds of the turn's flags:

        {"version": 2, "status": "ok" | "absent" | "invalid", "reason": str, "chars": int,
         "compose_ms", "typing_ms", "typed_chars", "inserted_chars", "hidden_ms", "panel_ms",
         "compositions": int | null, "paste": {source: {"count", "chars"}} | null,
         "passages": [title] | null, "timeline": [edit] | null, "timeline_cut": int | null,
         "timeline_replays": bool | null, "flags": [kind]}

    The timeline (collect/authenticity/timeline.py) only where the campaign kept one for the role.

    None for a turn no page sent (a model's, an imported one). The client address's hash is never
    exported."""
    if not isinstance(stored, dict):
        return None
    client = stored.get("client") if isinstance(stored.get("client"), dict) else None
    out: dict[str, Any] = {
        "version": AUTHENTICITY_EXPORT_VERSION,
        "status": stored.get("client_status", "absent"),
        "reason": stored.get("reason", ""),
        "chars": (stored.get("server") or {}).get("chars"),
    }
    for key in _RECORD_KEYS:
        out[key] = client.get(key) if client else None
    out["paste"] = client.get("paste", {}) if client else None
    out["passages"] = client.get("passages", []) if client else None
    for key in ("timeline", "timeline_cut", "timeline_replays"):
        out[key] = client.get(key) if client else None
    out["flags"] = sorted(set(flags))
    return out


def rooms_authenticity(room_ids: Iterable[Any]) -> dict[Any, dict[int, dict[str, Any] | None]]:
    """`--authenticity` for an exporter: the exported object (turn_authenticity) of every message of
    these rooms, by room id and seq; None for a message no page sent. Two queries, whatever the
    number of rooms."""
    from collect.models import Message
    from collect.models_authenticity import AuthenticityFlag

    rooms = list(room_ids)
    flags: dict[tuple[Any, int], list[str]] = {}
    for room_id, seq, kind in AuthenticityFlag.objects.filter(room_id__in=rooms, seq__isnull=False).values_list("room_id", "seq", "kind"):
        flags.setdefault((room_id, seq), []).append(kind)
    out: dict[Any, dict[int, dict[str, Any] | None]] = {room_id: {} for room_id in rooms}
    for room_id, seq, stored in Message.objects.filter(room_id__in=rooms).values_list("room_id", "seq", "authenticity"):
        out[room_id][seq] = turn_authenticity(stored, flags.get((room_id, seq), ()))
    return out
