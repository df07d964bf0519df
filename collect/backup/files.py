"""The files under var/ that a backup carries: what the database cannot rebuild, or takes long to.

- var/secret_key: the embedded mode's generated SECRET_KEY, when it is the key in use. Signed links,
  sessions and (unless GROUNDWORK_PSEUDONYM_SALT is set) the exports' pseudonymous worker ids
  depend on it. A key given by the environment is not in the backup: keep it with your secrets.
- the folders task types keep there (kept_folder_register): e.g. imported fact databases, which an
  export ships and nothing can rebuild.
- var/indexes/<slug>/: the published build of each knowledge index (rebuildable with build_index,
  but that takes minutes for a large source).
Not included: var/static (collectstatic makes it again), unpublished or superseded index builds."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.utils.module_loading import import_string

from collect.backup.kept import kept_folders
from collect.backup.manifest import BackupError
from groundwork.secret_key import KEY_FILE
from retrieval.index.store import BUILDS, VERSION, build_dir_create, build_publish

SECRET = f"var/{KEY_FILE}"
INDEXES = "var/indexes/"




def _tree(root: Path, prefix: str) -> Iterator[tuple[str, Path]]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            yield prefix + path.relative_to(root).as_posix(), path


def files_to_back_up() -> list[tuple[str, Path]]:
    """(tar member, file on disk) for everything under var/ the backup carries."""
    found: list[tuple[str, Path]] = []
    key_file = settings.VAR_DIR / KEY_FILE
    if key_file.is_file() and key_file.read_text(encoding="ascii").strip() == settings.SECRET_KEY:
        found.append((SECRET, key_file))
    for kept in kept_folders():
        if kept.folder().is_dir():
            found.extend(_tree(kept.folder(), kept.member_prefix))
    index_dir = settings.INDEX_DIR
    if index_dir.is_dir():
        for entry in sorted(index_dir.iterdir()):
            if entry.name.startswith(".") or not (entry / "meta.json").is_file():
                continue
            found.extend(_tree(entry.resolve(), f"{INDEXES}{entry.name}/"))
    return found


def member_path(member: str) -> PurePosixPath:
    """A member name from a backup, checked: relative, under var/, no way out of its folder."""
    path = PurePosixPath(member)
    if path.is_absolute() or ".." in path.parts or not member.startswith("var/") or len(path.parts) < 2:
        raise BackupError(f"the backup names a file outside var/: {member!r}")
    return path


def files_restore(staged: Path, members: list[str]) -> list[str]:
    """Put the staged files (staged/<member>) where this deployment keeps them; returns notes for
    the operator."""
    notes: list[str] = []
    indexes: dict[str, list[str]] = {}
    for member in members:
        path = member_path(member)
        source = staged / member
        if member == SECRET:
            target = settings.VAR_DIR / KEY_FILE
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            os.chmod(target, 0o600)
        elif kept := next((k for k in kept_folders() if member.startswith(k.member_prefix)), None):
            target = kept.folder() / Path(*path.parts[2:])
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        elif member.startswith(INDEXES) and len(path.parts) >= 4:
            indexes.setdefault(path.parts[2], []).append(member)
        else:
            raise BackupError(f"the backup holds a file this code does not know where to put: {member!r}")
    for slug, index_members in indexes.items():
        if not _index_restore(staged, slug, index_members):
            notes.append(f"index {slug!r} was built by another index version: rebuild it (manage.py build_index --source {slug})")
    return notes


def _index_restore(staged: Path, slug: str, members: list[str]) -> bool:
    """As a new build, published the way build_index publishes one (the link switches at once)."""
    if slug.startswith(".") or slug == BUILDS:
        raise BackupError(f"bad index name in the backup: {slug!r}")
    meta_member = f"{INDEXES}{slug}/meta.json"
    if meta_member not in members:
        raise BackupError(f"the backup's index {slug!r} has no meta.json")
    meta = json.loads((staged / meta_member).read_text())
    if meta.pop("version", None) != VERSION:
        return False
    build = build_dir_create(index_dir=settings.INDEX_DIR, slug=slug)
    for member in members:
        if member != meta_member:
            target = build / Path(*member_path(member).parts[3:])
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(staged / member, target)
    build_publish(index_dir=settings.INDEX_DIR, slug=slug, build=build, meta=meta)
    return True


def kept_folders_restored() -> int:
    """After a restore: each kept folder's hook (records pointing at files on another machine or
    another var/ are pointed at the restored copies). Returns how many records changed."""
    return sum(import_string(kept.restored)() for kept in kept_folders() if kept.restored)
