"""The held-out set the retraining gate scores on: one the site has, never a file outside it.

- An imported WOW++ file (`manage.py import_heldout FILE`, the format of the WOW++ release and of a
  relevance job's export): checked, then copied to RANKER_DIR/heldout.json, where it stays until
  another is imported or it is removed (`import_heldout --remove`). Every collected example then
  trains, except a context whose last two turns the file has.
- Otherwise the collection's own held-out share: the dialogues, and the relevance items, whose id
  hashes (BLAKE2b) into the first HELDOUT_PERCENT of 100 buckets. A room is in the share or not for
  good, whatever arrives later, so the share only grows and none of it ever trains a version. It
  gates once it has HELDOUT_MIN_CONTEXTS contexts with a relevant sentence; until then retraining
  is skipped, and says why.

`manage.py retrain_ranker --heldout FILE` scores one run on another file instead."""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from retrieval.rankers.wowpp import WowppContext, WowppError, wowpp_read
from retrieval.training import registry

HELDOUT_FILE = "heldout.json"
HELDOUT_PERCENT = 20  # of the collected rooms (and relevance items), by hash
HELDOUT_MIN_CONTEXTS = 20  # held-out contexts with a relevant sentence before the share gates


class HeldoutError(ValueError):
    """A held-out file that cannot gate: unreadable, malformed, or without a relevant sentence."""


@dataclass(frozen=True)
class HeldoutSet:
    source: str  # "file" (imported, or given for one run) or "collection" (the held-out share)
    contexts: list[WowppContext]  # those with a relevant sentence: the ones a score counts
    file: Path | None = None

    @property
    def ready(self) -> bool:
        """Whether it can gate: a file always (heldout_read refuses one with nothing to score on);
        the collection's share from HELDOUT_MIN_CONTEXTS contexts on."""
        return self.source == "file" or len(self.contexts) >= HELDOUT_MIN_CONTEXTS

    def describe(self) -> dict[str, object]:
        """What the manifest keeps of it beside each version's scores."""
        if self.file is not None:
            return {"source": self.source, "file": str(self.file), "contexts": len(self.contexts)}
        return {"source": self.source, "percent": HELDOUT_PERCENT, "contexts": len(self.contexts)}


def held_out_by_hash(context_id: str, *, per_dialogue: bool) -> bool:
    """Whether a collected context is in the held-out share: a per-dialogue source's context
    ("<kind>:DIALOGUE:TURN") by its dialogue, so that a dialogue is held out whole; any other (a
    relevance item, "relevance:JOB:KEY") by itself."""
    parts = context_id.split(":")
    key = ":".join(parts[:2]) if per_dialogue else context_id
    bucket = int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big") % 100
    return bucket < HELDOUT_PERCENT


def heldout_path() -> Path:
    return registry.registry_dir() / HELDOUT_FILE


def heldout_read(path: Path) -> list[WowppContext]:
    """The file's contexts that have a relevant sentence; HeldoutError naming the file otherwise."""
    try:
        contexts = wowpp_read(path)
    except (OSError, WowppError) as error:
        raise HeldoutError(f"held-out set {path}: {error}") from error
    scored = [context for context in contexts if context.relevant().any()]
    if not scored:
        raise HeldoutError(f"held-out set {path}: no context has a relevant sentence, nothing to score on")
    return scored


def heldout_imported() -> HeldoutSet | None:
    """The imported file, or None when none was imported; HeldoutError if it no longer reads."""
    path = heldout_path()
    if not path.exists():
        return None
    return HeldoutSet(source="file", contexts=heldout_read(path), file=path)


def heldout_import(source: Path) -> HeldoutSet:
    """Check `source` and make it the site's held-out set (replacing an earlier one atomically)."""
    heldout_read(source)
    data = source.read_bytes()
    target = heldout_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".heldout-", delete=False) as staging:
        staging.write(data)
    os.replace(staging.name, target)
    return HeldoutSet(source="file", contexts=heldout_read(target), file=target)


def heldout_remove() -> bool:
    """Go back to the collection's held-out share; False when no file was imported."""
    try:
        heldout_path().unlink()
    except FileNotFoundError:
        return False
    return True


def heldout_imported_at() -> str:
    """When the imported file was put in place (ISO 8601, UTC), or ""."""
    try:
        return datetime.fromtimestamp(heldout_path().stat().st_mtime, UTC).isoformat(timespec="seconds")
    except FileNotFoundError:
        return ""
