"""`import_dataset woi` then `export_dataset woi`: a file in the released format comes back byte
for byte; bad files are refused naming the line, entry and field, and store nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.models import Campaign, Message, Room
from collect.tasktypes.woi.models import WoiDialogue, WoiSearch, WoiTurn
from tests.woi.released import sample_dialogues, sample_write, schema_problems

pytestmark = pytest.mark.django_db


def export(tmp_path: Path, campaign: str) -> Path:
    out = tmp_path / "out"
    call_command("export_dataset", "woi", "--campaign", campaign, "--out", str(out), stdout=io.StringIO())
    return out


def test_the_sample_is_in_the_released_format(tmp_path: Path) -> None:
    assert schema_problems(sample_write(tmp_path / "valid.jsonl")) == []


def test_an_imported_file_exports_back_byte_for_byte(tmp_path: Path) -> None:
    sample = sample_write(tmp_path / "valid.jsonl")
    call_command("import_dataset", "woi", str(sample), "--campaign", "woi-sample", stdout=io.StringIO())
    rooms = Room.objects.filter(campaign__slug="woi-sample")
    assert rooms.count() == 2 and not Campaign.objects.get(slug="woi-sample").is_active
    assert WoiSearch.objects.filter(room__in=rooms).count() == 4
    assert Message.objects.filter(room__in=rooms).count() == 10
    # The reply after two searches is linked to the second (the documents on screen).
    fuji = WoiDialogue.objects.get(dialog_id="2_a3f9c0d1").room
    reply = WoiTurn.objects.get(room=fuji, seq=2)
    assert reply.search.query == "mount fuji climbing season" and reply.layout is None
    out = export(tmp_path, "woi-sample")
    assert (out / "valid.jsonl").read_bytes() == sample.read_bytes()
    assert (out / "train.jsonl").read_bytes() == b"" and (out / "test.jsonl").read_bytes() == b""


def test_keys_the_format_has_no_column_for_come_back_in_their_place(tmp_path: Path) -> None:
    lines = sample_dialogues()
    history = lines[0]["2_a3f9c0d1"]["dialog_history"]
    history[0] = {"text": history[0]["text"], "action": history[0]["action"], "context": {}, "timestamp": 1625306584.1765928}
    history[5]["context"] = {"selected_contents": history[5]["context"]["selected_contents"], "contents": history[5]["context"]["contents"], "search_query": "x"}
    lines[1]["7_b82e11aa"]["rating"] = 5
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    call_command("import_dataset", "woi", str(path), "--campaign", "woi-extra", stdout=io.StringIO())
    assert (export(tmp_path, "woi-extra") / "train.jsonl").read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"a": 1, "b": 2}', "line 1: expected a JSON object with one key"),
        ('{"d": {"apprentice_persona": 3, "dialog_history": []}}', "line 1: 'apprentice_persona' must be a string"),
        ('{"d": {"apprentice_persona": "p", "dialog_history": [{"action": "Wizard => Nobody", "text": "", "context": {}}]}}',
         "line 1, dialog_history[0].action: must be one of"),
        ('{"d": {"apprentice_persona": "p", "dialog_history": [{"action": "SearchAgent => Wizard", "text": "", "context": {"contents": []}}]}}',
         "line 1, dialog_history[0]: search results must follow a query"),
        ('{"d": {"apprentice_persona": "p", "dialog_history": [{"action": "Wizard => Apprentice", "text": "hi", "context": '
         '{"contents": [{"content": ["a", "b"], "url": "u", "title": "t"}], "selected_contents": [[false], [true]]}}]}}',
         "line 1, dialog_history[0].context.selected_contents[1]: 1 booleans for 2 sentences"),
        ('{"d": {"apprentice_persona": "\\ud800", "dialog_history": []}}', "line 1: d.apprentice_persona holds a lone surrogate"),
        ('{"d": {"apprentice_persona": "a\\u0000b", "dialog_history": []}}', "holds a NUL character"),
        ("not json", "line 1: invalid JSON"),
    ],
)
def test_a_bad_line_is_refused_with_where_and_nothing_is_stored(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "test.jsonl"
    path.write_text(sample_write(tmp_path / "ok.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_dataset", "woi", str(path), stdout=io.StringIO())
    assert message.replace("line 1", "line 2") in str(refused.value)
    assert not Room.objects.exists() and not WoiDialogue.objects.exists()


def test_a_file_whose_name_names_no_split_needs_one(tmp_path: Path) -> None:
    path = sample_write(tmp_path / "dialogues.jsonl")
    with pytest.raises(CommandError, match="give --split train|valid|test"):
        call_command("import_dataset", "woi", str(path), stdout=io.StringIO())
    call_command("import_dataset", "woi", str(path), "--split", "test", "--campaign", "woi-t", stdout=io.StringIO())
    assert (export(tmp_path, "woi-t") / "test.jsonl").read_bytes() == path.read_bytes()
