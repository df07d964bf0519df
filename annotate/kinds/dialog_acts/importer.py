"""Curiosity dialogs (docs/schemas.md#curiosity) -> dialog-act items, one per dialog, labeled per
message index. As `task` they are to be labeled; as `gold` / `qualification` the file's own `dialog_acts`
become the known answers. The whole dialog is kept, so that the labels can be written back into it
(annotate.kinds.dialog_acts.exporter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from annotate.importers import ImportFailure, is_str_list, read_json, require, role_of, target_job
from annotate.kinds.dialog_acts import NAME
from annotate.kinds.dialog_acts.acts import DIALOG_ACTS
from annotate.kinds.dialog_acts.exporter import CURIOSITY_FILE
from annotate.models import ItemRole
from annotate.services.jobs import ItemSpec, items_add

CURIOSITY_SENDERS = ("user", "assistant")


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("dialogs"), list):
        raise ImportFailure('a Curiosity file is an object {"dialogs": [...], ...}')
    role = role_of(options)
    specs = [item_spec(n, dialog, role=role) for n, dialog in enumerate(data["dialogs"])]
    # The file's own key order ("dialogs" among the others), which a JSON column need not keep.
    source = {"dataset": CURIOSITY_FILE, "file": path.name, "extra": {k: v for k, v in data.items() if k != "dialogs"},
              "order": list(data)}
    with transaction.atomic():
        job = target_job(path, options, kind=NAME, create_fresh=False, source=source)
        added = items_add(job=job, specs=specs)
    return {"job": job.slug, "role": role, "items": added, "skipped": len(specs) - added}


def item_spec(n: int, dialog: Any, *, role: str) -> ItemSpec:
    where = f"dialog {n}"
    require(isinstance(dialog, dict), where, "must be an object")
    require(isinstance(dialog.get("dialog_id"), int), where, "dialog_id must be an integer")
    where = f"dialog_id {dialog['dialog_id']}"
    require(isinstance(dialog.get("focus_entity"), str), where, "focus_entity must be a string")
    require(is_str_list(dialog.get("aspects", [])), where, "aspects must be a list of strings")
    messages = dialog.get("messages")
    require(isinstance(messages, list) and bool(messages), where, "messages must be a non-empty list")
    shown, gold = [], []
    for index, message in enumerate(messages):
        at = f"{where}, message {index}"
        require(isinstance(message, dict) and isinstance(message.get("message"), str), at, "message text missing")
        require(message.get("sender") in CURIOSITY_SENDERS, at, "sender must be 'user' or 'assistant'")
        shown.append({"sender": message["sender"], "text": message["message"]})
        if role != ItemRole.TASK:
            acts = message.get("dialog_acts")
            require(is_str_list(acts), at, "a gold dialog needs dialog_acts on every message")
            unknown = [a for a in acts if a not in DIALOG_ACTS]
            if unknown:
                raise ImportFailure(f"{at}: unknown dialog act {unknown[0]!r}")
            gold.append(sorted(set(acts), key=DIALOG_ACTS.index))
    payload = {"topic": dialog["focus_entity"], "aspects": dialog.get("aspects", []), "messages": shown, "dialog": dialog}
    key = str(dialog["dialog_id"])
    if role == ItemRole.TASK:
        return ItemSpec(key=key, payload=payload)
    return ItemSpec(key=key, payload=payload, role=role, gold={"acts": gold})
