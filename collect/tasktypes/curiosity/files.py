"""The file-level keys of Curiosity's split files (`db_checksum`, and in the release also
`source_checksum`, `generated_time`, `unannotated_dataset_checksum`, ...): kept by the import, per
campaign and split, in the file's own order, and written back around the dialogs by the export.

They live in the campaign's `protocol_config["imported_files"][split]` as `[[key, value], ...]`,
"dialogs" standing where the dialog list was. `db_checksum` is written from the fact db actually
exported (the import has checked that it is the file's own).
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from collect.models import Campaign

CONFIG_KEY = "imported_files"
DIALOGS = "dialogs"
DB_CHECKSUM = "db_checksum"
STANDARD = [[DIALOGS, None], [DB_CHECKSUM, None]]  # a collected file: {"dialogs": [...], "db_checksum": md5}


class FileKeysConflict(ValueError):
    """A campaign already holds this split with other file-level keys."""


def file_keys_of(data: dict[str, Any]) -> list[list[Any]]:
    return [[key, None if key in (DIALOGS, DB_CHECKSUM) else value] for key, value in data.items()]


def file_keys_remember(*, campaign: Campaign, split: str, keys: list[list[Any]], file: str) -> None:
    """Keep a split file's keys on its campaign; a second file of the same split must agree."""
    stored = campaign.protocol_config.get(CONFIG_KEY, {}) if isinstance(campaign.protocol_config, dict) else {}
    known = stored.get(split)
    if known is not None and known != keys:
        names = sorted({k for k, _ in known} ^ {k for k, _ in keys} | {k for (k, v), (_, w) in zip(known, keys) if v != w})
        raise FileKeysConflict(
            f"{file}: campaign {campaign.slug!r} already holds a {split} file whose file-level keys differ "
            f"({', '.join(names) or 'their order'}); import it into another campaign with --campaign"
        )
    if known is None:
        config = dict(campaign.protocol_config or {})
        config[CONFIG_KEY] = {**stored, split: keys}
        campaign.protocol_config = config
        campaign.save(update_fields=["protocol_config"])


def file_frame(campaigns: Iterable[Campaign], split: str, checksum: str) -> tuple[str, str, list[str]]:
    """(head, tail, notes) around the dialogs of one split file: the keys the first campaign that
    imported this split kept (noted when another campaign kept different ones), else the standard two."""
    kept = [c.protocol_config[CONFIG_KEY][split] for c in campaigns
            if isinstance(c.protocol_config, dict) and split in c.protocol_config.get(CONFIG_KEY, {})]
    keys = kept[0] if kept else STANDARD
    notes = []
    if any(k != keys for k in kept[1:]):
        notes.append(f"the exported campaigns kept different file-level keys for {split}; the first campaign's are written")
    before, after, seen = [], [], False
    for key, value in keys:
        if key == DIALOGS:
            seen = True
            continue
        text = f"{json.dumps(key)}: {json.dumps(checksum if key == DB_CHECKSUM else value)}"
        (after if seen else before).append(text)
    head = "{" + "".join(f"{text}, " for text in before) + '"dialogs": ['
    tail = "\n]" + "".join(f", {text}" for text in after) + "}\n"
    return head, tail, notes
