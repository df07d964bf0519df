"""`manage.py simulate woi` runs whole dialogues through the real websocket stack; their export
is in the released format (a schema check that always runs) and ParlAI's own `wizard_of_internet`
teachers read it (where GROUNDWORK_PARLAI_PYTHON names a Python with ParlAI 1.7.2: docs/datasets.md
says how one is made; skipped otherwise)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.woi.models import SearchStatus, WoiDialogue, WoiSearch, WoiTurn
from tests.woi.released import sample_write, schema_problems
from tests.authenticity.exported import assert_carried

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]
TEACHERS = Path(__file__).with_name("parlai_teachers.py")


# Interests the test knowledge has articles about (tests/conftest.py), so that the wizard finds them.
FOUND = {"persona": {"template_share": 1, "topics": [["item recently bought"], ["item recently bought"]]}}


def simulate_and_export(tmp_path: Path, dialogues: int = 3) -> Path:
    Campaign.objects.filter(slug="woi-test").update(protocol_config=FOUND)
    out = io.StringIO()
    call_command("simulate", "woi", dialogues=dialogues, concurrency=2, stdout=out)
    assert f"simulated {dialogues} complete dialogues" in out.getvalue()
    folder = tmp_path / "data" / "wizard_of_interent"
    call_command("export_dataset", "woi", "--out", str(folder), "--valid", "0", "--test", "0", stdout=io.StringIO())
    return folder


def test_simulated_dialogues_are_stored_and_export_in_the_released_format(campaign: Campaign, tmp_path: Path) -> None:
    folder = simulate_and_export(tmp_path)
    rooms = list(Room.objects.filter(campaign=campaign))
    assert len(rooms) == 3 and all(room.status == RoomStatus.COMPLETE and 1 <= room.rating <= 5 for room in rooms)
    for room in rooms:
        dialogue = WoiDialogue.objects.get(room=room)
        assert dialogue.persona and room.topic == dialogue.persona.split("\n")[0 if dialogue.persona_form["mode"] == "template" else -2]
        replies = Message.objects.filter(room=room, role="wizard")
        assert replies.count() == 2 == WoiTurn.objects.filter(room=room).count()
        assert WoiSearch.objects.filter(room=room, status=SearchStatus.DONE).count() == 2  # one a turn
    assert any(t.selected[0] == [False] for t in WoiTurn.objects.filter(room__in=rooms))  # some replies used sentences
    lines = (folder / "train.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and (folder / "valid.jsonl").read_text() == "" and schema_problems(folder / "train.jsonl") == []
    ids = {next(iter(json.loads(line))) for line in lines}
    assert ids == {str(room.pk) for room in rooms}
    assert_carried("woi", rooms, tmp_path / "with-authenticity")


@pytest.mark.skipif(not os.environ.get("GROUNDWORK_PARLAI_PYTHON"), reason="GROUNDWORK_PARLAI_PYTHON is not set (a Python with ParlAI installed)")
def test_parlai_reads_the_export_with_its_own_teachers(campaign: Campaign, tmp_path: Path) -> None:
    call_command("import_dataset", "woi", str(sample_write(tmp_path / "train.jsonl")), "--campaign", "woi-sample", stdout=io.StringIO())
    folder = simulate_and_export(tmp_path)
    (folder / ".built").write_text(f"{time.ctime()}\n1.0")  # the teacher's build version: nothing is downloaded
    teachers = ["wizard_of_internet", "wizard_of_internet:ApprenticeDialogTeacher", "wizard_of_internet:SearchQueryTeacher",
                "wizard_of_internet:GoldKnowledgeTeacher"]
    done = subprocess.run([os.environ["GROUNDWORK_PARLAI_PYTHON"], str(TEACHERS), str(tmp_path / "data"), "train", *teachers],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    read = json.loads(done.stdout.strip().splitlines()[-1])
    wizard = list(Message.objects.filter(role="wizard").order_by("room__woi__room__campaign__created", "room__woi__position", "room__created", "seq").values_list("text", flat=True))
    assert read["wizard_of_internet"]["episodes"] == 5  # the sample's two dialogues and three simulated ones
    assert sorted(label for [label] in read["wizard_of_internet"]["labels"]) == sorted(wizard)
    apprentice = Message.objects.filter(role="apprentice").count()
    assert read["wizard_of_internet:ApprenticeDialogTeacher"]["examples"] == apprentice
    queries = sorted(WoiSearch.objects.filter(status=SearchStatus.DONE).values_list("query", flat=True))
    assert sorted(label for [label] in read["wizard_of_internet:SearchQueryTeacher"]["labels"]) == queries
    selecting = sum(1 for t in WoiTurn.objects.all() if t.selected[0] == [False])
    assert read["wizard_of_internet:GoldKnowledgeTeacher"]["examples"] == selecting
