"""groundwork.surrogates: the first string holding a lone UTF-16 surrogate in a parsed JSON value,
with its path, for the messages of every importer and input that refuses such text."""

from __future__ import annotations

import json

import pytest

from groundwork.surrogates import lone_surrogate


def test_it_finds_the_first_string_in_document_order() -> None:
    found = lone_surrogate([{"dialog": [{"text": "fine"}, {"text": "a \ud83d b"}]}, {"text": "\udfff"}])
    assert found is not None and found.path == (0, "dialog", 1, "text") and found.code_point == 0xD83D
    assert found.where() == "record 0, dialog[1].text holds a lone surrogate (U+D83D), which is not valid Unicode text"


def test_it_names_a_key_that_holds_one_without_printing_it() -> None:
    found = lone_surrogate({"goal": [{"x y": 1, "\ud800": 2}]})
    assert found is not None and found.in_key
    assert found.problem() == 'the key goal[0]["\\ud800"] holds a lone surrogate (U+D800), which is not valid Unicode text'
    found.problem().encode("utf-8")  # the message itself can be printed and stored


@pytest.mark.parametrize("value", ["plain", "emoji \U0001f600 and 中文", {"a": [1, 2.5, None, True]}, json.loads('"\\ud83d\\ude00"')])
def test_valid_text_and_paired_surrogates_pass(value: object) -> None:
    assert lone_surrogate(value) is None


def test_deep_nesting_does_not_overflow() -> None:
    value: object = "\udc00"
    for _ in range(5_000):  # far deeper than json.loads can nest
        value = [value]
    found = lone_surrogate(value)
    assert found is not None and len(found.path) == 5_000
