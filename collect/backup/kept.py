"""The folders under var/ that task types keep and a backup carries (collect.backup.files): each
registered by its app when Django loads it. Imports nothing that needs the app registry."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.utils.module_loading import import_string


@dataclass(frozen=True)
class KeptFolder:
    """A folder under var/ whose files a backup carries and a restore puts back.

    member_prefix: where its files are in the backup ("var/<name>/"; fixed once backups exist).
    folder_path: dotted path of `folder() -> Path`, where this deployment keeps them.
    restored: dotted path of `restored() -> int`, called once a restore is done (e.g. to point
        database records at the restored files); returns how many records it changed."""

    member_prefix: str
    folder_path: str
    restored: str = ""

    def folder(self) -> Path:
        return import_string(self.folder_path)()


_KEPT: list[KeptFolder] = []


def kept_folder_register(kept: KeptFolder) -> None:
    """Called by the app that keeps the folder, when Django loads it (AppConfig.ready)."""
    if not kept.member_prefix.startswith("var/") or not kept.member_prefix.endswith("/"):
        raise ValueError(f"a kept folder's member prefix is var/<name>/, not {kept.member_prefix!r}")
    _KEPT.append(kept)


def kept_folders() -> list[KeptFolder]:
    return list(_KEPT)
