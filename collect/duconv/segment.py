"""Word segmentation for exports: DuConv's text is Chinese segmented with spaces, and BLEU and
DISTINCT count those tokens. jieba (MIT) loads its dictionary once per process, on first use."""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def segment(text: str) -> str:
    """`text` as space-separated words; whitespace the writer typed only separates words."""
    return " ".join(word for word in _tokenizer().cut(text) if word.strip())
