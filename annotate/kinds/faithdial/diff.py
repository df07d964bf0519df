"""A word diff of a response and its rewrite, for the reviewers' report (difflib, word by word)."""

from __future__ import annotations

import difflib


def word_diff(original: str, edited: str) -> list[tuple[str, str]]:
    """[(op, text)] with op "equal", "delete" (only in the original) or "insert" (only in the
    rewrite); a replaced run is its deletion then its insertion. Words are split on whitespace and
    rejoined with single spaces."""
    before, after = original.split(), edited.split()
    parts: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append(("equal", " ".join(before[i1:i2])))
            continue
        if i2 > i1:
            parts.append(("delete", " ".join(before[i1:i2])))
        if j2 > j1:
            parts.append(("insert", " ".join(after[j1:j2])))
    return parts
