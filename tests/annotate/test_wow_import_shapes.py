"""Wizard of Wikipedia files as the original release has them: wizard turns whose checked_sentence
is `{}`, turns without retrieved_passages; a malformed passage is refused by dialogue, turn and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Item, Job

pytestmark = pytest.mark.django_db


def wow_file(tmp_path: Path, *, passages: object = None, checked: object = None) -> Path:
    dialogue = {
        "chosen_topic": "Blues", "persona": "", "wizard_eval": -1, "chosen_topic_passage": ["Blues is a genre."],
        "dialog": [
            {"speaker": "0_Apprentice", "text": "Hi!", "retrieved_topics": ["Jazz"],
             "retrieved_passages": passages if passages is not None else [{"Jazz": ["Jazz swings."]}]},
            {"speaker": "1_Wizard", "text": "Blues is great.", "retrieved_topics": [], "retrieved_passages": [],
             "checked_sentence": {} if checked is None else checked, "checked_passage": {}},
            {"speaker": "0_Apprentice", "text": "Tell me more."},  # no retrieved_* keys
            {"speaker": "1_Wizard", "text": "It is old.", "checked_sentence": {"chosen_Blues_0": "Blues is a genre."},
             "checked_passage": {"chosen_topic_0_Blues": "Blues"}},
        ],
    }
    path = tmp_path / "wow.json"
    path.write_text(json.dumps([dialogue]))
    return path


def test_it_accepts_empty_checked_sentences_and_absent_passages(tmp_path: Path) -> None:
    call_command("import_dataset", "wow-relevance", str(wow_file(tmp_path)), "--job", "wow-shapes")
    items = list(Item.objects.filter(job__slug="wow-shapes").order_by("position"))
    assert [item.payload["turns"] for item in items] == [["Hi!"], ["Hi!", "Blues is great.", "Tell me more."]]
    assert [c["sentence"] for c in items[0].payload["candidates"]] == ["Blues is a genre.", "Jazz swings."]


@pytest.mark.parametrize(
    ("changes", "text"),
    [
        ({"passages": [{"Jazz": ["a"], "Rock": ["b"]}]}, r"dialogue 0, turn 0: retrieved_passages\[0\] must be a one-key object"),
        ({"passages": ["Jazz"]}, r"dialogue 0, turn 0: retrieved_passages\[0\] must be a one-key object"),
        ({"checked": "Blues is a genre."}, "dialogue 0, turn 1: checked_sentence must be an object"),
    ],
)
def test_it_refuses_malformed_turns_naming_them(tmp_path: Path, changes: dict, text: str) -> None:
    with pytest.raises(CommandError, match=text):
        call_command("import_dataset", "wow-relevance", str(wow_file(tmp_path, **changes)), "--job", "wow-bad")
    assert not Item.objects.exists()
    assert not Job.objects.filter(slug="wow-bad").exists()
