"""Sentence splitting for every language we import, on blingfire (MIT, handles abbreviations and CJK)."""

from __future__ import annotations

import blingfire


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, without empty ones. Never raises on odd input."""
    if not text or text.isspace():
        return []
    # blingfire encodes to UTF-8 and so raises on lone surrogates (e.g. from broken JSON escapes).
    safe = text.encode("utf-8", "replace").decode("utf-8")
    return [s.strip() for s in blingfire.text_to_sentences(safe).split("\n") if s.strip()]
