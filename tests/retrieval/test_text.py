from __future__ import annotations

import pytest

from retrieval.text import split_sentences


def test_it_splits_at_full_stops() -> None:
    assert split_sentences("Dogs bark. Cats purr! Do fish sleep?") == ["Dogs bark.", "Cats purr!", "Do fish sleep?"]


def test_it_keeps_abbreviations_inside_sentences() -> None:
    text = "Dr. Smith went to Washington, D.C. on Monday. He left at 3 p.m. and came back."

    assert split_sentences(text) == [
        "Dr. Smith went to Washington, D.C. on Monday.",
        "He left at 3 p.m. and came back.",
    ]


def test_it_keeps_accented_letters() -> None:
    assert split_sentences("Le café est fermé. Où est Zoë?") == ["Le café est fermé.", "Où est Zoë?"]


def test_it_splits_chinese_at_full_width_punctuation() -> None:
    assert split_sentences("我爱北京。你呢？很好！") == ["我爱北京。", "你呢？", "很好！"]


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "\u200b"])
def test_it_returns_nothing_for_blank_text(text: str) -> None:
    assert split_sentences(text) == []


def test_it_survives_lone_surrogates_and_control_characters() -> None:
    sentences = split_sentences("Broken \ud800 escape. Null \x00 byte. Fine.")

    assert len(sentences) == 3
    assert sentences[-1] == "Fine."


def test_it_strips_whitespace_around_sentences() -> None:
    assert split_sentences("  One.\u2028Two.  ") == ["One.", "Two."]
