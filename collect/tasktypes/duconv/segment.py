"""Word segmentation for exports: DuConv's text is Chinese segmented with spaces, and BLEU and
DISTINCT count those tokens. jieba (MIT) loads its dictionary once per process, on first use."""

from __future__ import annotations

from retrieval.words import jieba_tokenizer


def segment(text: str) -> str:
    """`text` as space-separated words; whitespace the writer typed only separates words."""
    return " ".join(word for word in jieba_tokenizer().cut(text) if word.strip())
