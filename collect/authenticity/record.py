"""The per-turn authenticity record: what the chat page measured while its worker wrote a message
(static/js/authenticity.js), checked and clamped here, and what the server measures itself.

Stored on the message (Message.authenticity) as, version RECORD_VERSION:

    {"v": 1,
     "client": {...} | null,           # the page's measurements, clamped (CLIENT_FIELDS), or null
     "client_status": "ok" | "absent" | "invalid",
     "reason": "",                     # why absent or invalid, one sentence
     "server": {"chars": int,          # characters in the stored text (code points)
                "address": str}}       # keyed hash of the client address ("" when unknown)

The client part (all times in milliseconds, counts and characters as integers):
    compose_ms  first keystroke (or paste) of the turn to the send
    typing_ms   active typing: the gaps between input events shorter than TYPING_GAP_MS
    typed_chars characters entered one key at a time and by an input method's compositions
    inserted_chars characters inserted several at once, not pasted: autocorrect, word suggestions,
                voice input (never counted as a paste)
    paste       {"knowledge"|"partner"|"outside": {"count": int, "chars": int}}: pasted or dropped
                text by where the page found it shown (its side pane, the partner's messages, neither)
    hidden_ms   time the page was hidden (another tab, another app) during the turn
    panel_ms    time the side pane (knowledge) was on screen during the turn
    passages    titles of the side pane's passages the worker opened during the turn (at most 20)
    compositions input-method compositions ended during the turn
    timeline    only where the campaign keeps insertion timelines for the role (its policy's
                "timeline": "on"): the turn's edits (collect/authenticity/timeline.py), with
    timeline_cut the edits the page left out to fit the frame, and
    timeline_replays whether replaying the edits gives the text sent (the server's check).
                A page's timeline is dropped, never stored, where the policy does not keep one.

A page that sends no record (an old page, a bot) or one that cannot be right (a bad type, a
version this server does not know, fewer characters typed and pasted than the message holds) is
stored with client null and the reason: the message itself is never refused for its record.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import hmac
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from collect.authenticity.timeline import TimelineInvalid, replays, timeline_check

RECORD_VERSION = 1
PASTE_SOURCES = ("knowledge", "partner", "outside")
MAX_MS = 24 * 3600 * 1000  # a turn longer than a day is clamped: no study turn lasts that long
MAX_PASSAGES = 20
MAX_TITLE_CHARS = 200
MAX_COUNT = 10_000
# Typed and pasted characters may fall short of the message's by this share (and a few characters)
# before the record is called inconsistent: a draft restored after a reload, trimmed spaces.
SHORTFALL_SHARE = 0.5
SHORTFALL_CHARS = 10
_INT_FIELDS = ("compose_ms", "typing_ms", "typed_chars", "inserted_chars", "hidden_ms", "panel_ms", "compositions")
CLIENT_FIELDS = (*_INT_FIELDS, "paste", "passages")


class RecordInvalid(ValueError):
    """A client record that cannot be stored; the message names the field."""


def _bounded_int(record: dict[str, Any], key: str, high: int) -> int:
    value = record.get(key, 0)
    # bool is an int in Python; a page never sends one for a count.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RecordInvalid(f"{key} must be a number")
    return int(min(max(value, 0), high))


def _high(key: str) -> int:
    return MAX_MS if key.endswith("_ms") else MAX_COUNT if key == "compositions" else 100 * settings.MESSAGE_MAX_CHARS


@functools.cache
def _highs() -> dict[str, int]:
    # Read once: every message a page sends is checked (the chat's hot path), and each read of a
    # setting goes through Django's lazy settings object.
    return {key: _high(key) for key in (*_INT_FIELDS, "chars")}


def client_record(value: Any, *, text: str, timeline: bool = False) -> dict[str, Any]:
    """The page's record of a message of `text`, checked and clamped (RecordInvalid naming the
    field otherwise); its insertion timeline kept only where `timeline` (the role's policy)."""
    text_chars = len(text)
    highs = _highs()
    if not isinstance(value, dict):
        raise RecordInvalid("the record must be an object")
    if value.get("v") != RECORD_VERSION:
        raise RecordInvalid(f"unknown record version {value.get('v')!r}")
    out: dict[str, Any] = {key: _bounded_int(value, key, highs[key]) for key in _INT_FIELDS}
    paste = value.get("paste", {})
    if not isinstance(paste, dict) or set(paste) - set(PASTE_SOURCES):
        raise RecordInvalid(f"paste must map {', '.join(PASTE_SOURCES)} to counts")
    out["paste"] = {}
    for source in PASTE_SOURCES:
        if source in paste:
            entry = paste[source]
            if not isinstance(entry, dict):
                raise RecordInvalid(f"paste.{source} must be an object")
            count, chars = _bounded_int(entry, "count", MAX_COUNT), _bounded_int(entry, "chars", highs["chars"])
            if count or chars:
                out["paste"][source] = {"count": count, "chars": chars}
    passages = value.get("passages", [])
    if not isinstance(passages, list) or not all(isinstance(p, str) for p in passages):
        raise RecordInvalid("passages must be a list of titles")
    out["passages"] = list(dict.fromkeys(p[:MAX_TITLE_CHARS] for p in passages))[:MAX_PASSAGES]
    if out["typing_ms"] > out["compose_ms"] + 1000:
        raise RecordInvalid("typing_ms exceeds compose_ms")
    accounted = out["typed_chars"] + out["inserted_chars"] + sum(entry["chars"] for entry in out["paste"].values())
    if accounted < text_chars * SHORTFALL_SHARE - SHORTFALL_CHARS:
        raise RecordInvalid(f"{accounted} characters typed or pasted for a message of {text_chars}")
    if timeline and "timeline" in value:
        try:
            out["timeline"] = timeline_check(value["timeline"], max_chars=highs["chars"])
        except TimelineInvalid as error:
            raise RecordInvalid(str(error)) from None
        out["timeline_cut"] = _bounded_int(value, "timeline_cut", MAX_COUNT)
        out["timeline_replays"] = not out["timeline_cut"] and replays(out["timeline"], text)
    return out


@functools.lru_cache(maxsize=4096)  # a socket's every message comes from the same address
def address_key(address: str | None) -> str:
    """A keyed hash of a client address: equal addresses compare equal, and the export and the
    review page never show the address itself. "" for none, and for a loopback client (the
    simulate command, a load test, a browser test on this machine), which says nothing about who."""
    if not address or _loopback(address):
        return ""
    return hmac.new(settings.SECRET_KEY.encode(), f"address:{address}".encode(), hashlib.sha256).hexdigest()[:16]


@receiver(setting_changed)
def _settings_changed(*, setting: str, **kwargs: Any) -> None:
    # The caches above hold what these settings gave (a test, or override_settings, changes them).
    if setting == "MESSAGE_MAX_CHARS":
        _highs.cache_clear()
    elif setting == "SECRET_KEY":
        address_key.cache_clear()


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def record_build(*, value: Any, text: str, address: str | None = None, timeline: bool = False) -> dict[str, Any]:
    """The record stored with a message of `text`: the page's part (`value`, the frame's
    `authenticity`, None when it sent none) checked, with its insertion timeline where `timeline`
    (the sender role's policy keeps one), and the server's own measurements."""
    chars = len(text)
    client: dict[str, Any] | None = None
    status, reason = "absent", "the page sent no record"
    if value is not None:
        try:
            client, status, reason = client_record(value, text=text, timeline=timeline), "ok", ""
        except RecordInvalid as error:
            status, reason = "invalid", str(error)
    return {
        "v": RECORD_VERSION,
        "client": client,
        "client_status": status,
        "reason": reason,
        "server": {"chars": chars, "address": address_key(address)},
    }
