"""A turn's insertion timeline: every change the worker made to the message box, in order, kept
only where the campaign's policy says "timeline": "on" for the role (collect/authenticity/policy.py)
and the worker's pages said so. Recorded by static/js/authenticity.js, checked here.

The timeline is a list of edits, each a list of six values:

    [t_ms, kind, at, removed, text, gaps]

    t_ms     int, milliseconds from the turn's start (the previous send, or the page's load) to
             the edit; never decreasing
    kind     what made it, one of EDIT_KINDS: "key" (keys typed one at a time, a run of them merged
             into one edit), "ime" (an input method's composition), "insert" (several characters at
             once that are not a paste: autocorrect, a word suggestion, voice input), "paste",
             "drop", "delete", "undo" (undo or redo)
    at       int, where in the box's text (in characters, code points) the edit starts
    removed  int, characters removed there
    text     str, the characters inserted there
    gaps     [int], for a "key" run, the milliseconds between its successive keys (len(text) - 1
             of them); [] for any other kind

Replaying the edits on the text the turn started with gives the text sent (`replays`, below). The
same idea as the keystroke logs of writing-process research (Leijten & Van Waes, Inputlog), kept
per turn; a study that wants only counts and times leaves the timeline off.
"""

from __future__ import annotations

from typing import Any

EDIT_KINDS = ("key", "ime", "insert", "paste", "drop", "delete", "undo")
# A page trims its timeline to fit the frame (WS_MAX_FRAME_BYTES) and says how many edits it cut;
# this caps what a forged one could make the server store.
MAX_EDITS = 5000
MAX_MS = 24 * 3600 * 1000


class TimelineInvalid(ValueError):
    """A timeline that cannot be stored; the message names the edit and the value."""


def _int(value: Any, where: str, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise TimelineInvalid(f"{where} must be an integer from 0 to {high}")
    return value


def timeline_check(value: Any, *, max_chars: int) -> list[list[Any]]:
    """The page's timeline, checked (TimelineInvalid naming the edit otherwise): at most MAX_EDITS
    edits, times never decreasing, positions and texts within `max_chars` characters."""
    if not isinstance(value, list):
        raise TimelineInvalid("timeline must be a list of edits")
    if len(value) > MAX_EDITS:
        raise TimelineInvalid(f"timeline has {len(value)} edits, more than {MAX_EDITS}")
    out: list[list[Any]] = []
    last = 0
    for i, edit in enumerate(value):
        where = f"timeline[{i}]"
        if not isinstance(edit, list) or len(edit) != 6:
            raise TimelineInvalid(f"{where} must be [t_ms, kind, at, removed, text, gaps]")
        t, kind, at, removed, text, gaps = edit
        t = _int(t, f"{where} t_ms", MAX_MS)
        if t < last:
            raise TimelineInvalid(f"{where} t_ms goes back in time ({t} after {last})")
        last = t
        if kind not in EDIT_KINDS:
            raise TimelineInvalid(f"{where} kind must be one of {', '.join(EDIT_KINDS)}")
        at, removed = _int(at, f"{where} at", max_chars), _int(removed, f"{where} removed", max_chars)
        if not isinstance(text, str) or len(text) > max_chars:
            raise TimelineInvalid(f"{where} text must be a string of at most {max_chars} characters")
        expected = max(len(text) - 1, 0) if kind == "key" else 0
        if not isinstance(gaps, list) or len(gaps) != expected:
            raise TimelineInvalid(f"{where} gaps must hold {expected} intervals")
        out.append([t, kind, at, removed, text, [_int(g, f"{where} gaps", MAX_MS) for g in gaps]])
    return out


def replay(timeline: list[list[Any]], start: str = "") -> str:
    """The text the edits of a checked timeline make of `start`."""
    text = start
    for _t, _kind, at, removed, inserted, _gaps in timeline:
        text = text[:at] + inserted + text[at + removed:]
    return text


def replays(timeline: list[list[Any]], sent: str) -> bool:
    """Whether the timeline, replayed on an empty box, gives the text sent (the page trims the
    ends of what it sends). False for a timeline the page cut, or one begun on a restored draft
    whose earlier edits were lost."""
    return replay(timeline).strip() == sent.strip()
