"""Curiosity-shaped dialog files for the import/export tests: every field of
docs/schemas.md#curiosity, with the quirks of the original release (int worker ids, null dialog
acts, a used fact, likes)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any


def md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def message(text: str, sender: str, mid: int, *, liked: bool = False, facts: list | None = None, acts: Any = None) -> dict:
    return {
        "message": text,
        "liked": liked,
        "sender": sender,
        "facts": facts or [],
        "message_id": str(mid),
        "dialog_acts": [] if acts is None else acts,
    }


def bank(fids: list[int], used: int | None = None) -> list[dict]:
    sources = ["known", "section", "random"]
    return [{"fid": fid, "used": i == used, "source": sources[i % 3]} for i, fid in enumerate(fids)]


def dialog(dialog_id: int, topic: str, fids: list[int], **overrides: Any) -> dict:
    out = {
        "messages": [
            message(f"Hi, what do you know about {topic}'s history?", "user", dialog_id * 100 + 1, acts=["request_topic"]),
            message("It was a German colony until 1915.", "assistant", dialog_id * 100 + 2, liked=True,
                    facts=bank(fids[:9], used=0), acts=["inform_response"]),
            message("Interesting! And the economy?", "user", dialog_id * 100 + 3, acts=None),
            message("Diamonds are mined there.", "assistant", dialog_id * 100 + 4, facts=bank(fids[1:10]), acts=[]),
        ],
        "known_entities": ["Germany", "South Africa"],
        "focus_entity": topic,
        "dialog_id": dialog_id,
        "inferred_steps": False,
        "created_time": 1568060716 + dialog_id,
        "aspects": ["History", "Economy"],
        "first_aspect": "History",
        "second_aspect": "Economy",
        "shuffle_facts": True,
        "related_entities": ["Germany", "South Africa", "Windhoek", "Portugal", "Otjiwarongo"],
        "tag": "round_2",
        "user_id": 341,
        "assistant_id": 77,
        "is_annotated": False,
        "user_dialog_rating": 5,
        "user_other_agent_rating": 4,
        "assistant_dialog_rating": 5,
        "assistant_other_agent_rating": 5,
        "reported": False,
        "annotated": True,
    }
    out.update(overrides)
    return out


def write_dialogs(path: Path, dialogs: list[dict], checksum: str) -> Path:
    path.write_text(json.dumps({"dialogs": dialogs, "db_checksum": checksum}), encoding="utf-8")
    return path


def quirky(dialogs: list[dict]) -> list[dict]:
    """A copy where one dialog carries the original's oddities: a null dialog act list, a never
    used second aspect, an unknown key, a missing optional key, and string worker ids."""
    dialogs = copy.deepcopy(dialogs)
    odd = dialogs[-1]
    odd["messages"][2]["dialog_acts"] = None
    odd["second_aspect"] = None
    odd["extra_key"] = {"kept": [1, 2]}
    del odd["reported"]
    odd["user_id"], odd["assistant_id"] = "u-9", "a-9"
    odd["messages"][1]["note"] = "kept too"
    return dialogs
