"""Curiosity dialogs (docs/schemas.md#curiosity) into dialog-act jobs, labeled per message index,
and the majority labels written back into the same file."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.kinds.dialog_acts.exporter import export_curiosity_acts
from annotate.models import Item, ItemRole, Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from tests.annotate.conftest import People

pytestmark = pytest.mark.django_db


def dialog(dialog_id: int, acts: list[list[str]] | None = None) -> dict:
    texts = [("user", "Hi, what is Uruguay known for?"), ("assistant", "Its beef exports."), ("user", "Cool!")]
    messages = [
        {"message": text, "sender": sender, "liked": False, "facts": [], "message_id": str(10 * dialog_id + n),
         "dialog_acts": acts[n] if acts else []}
        for n, (sender, text) in enumerate(texts)
    ]
    return {"dialog_id": dialog_id, "focus_entity": "Uruguay", "aspects": ["Economy", "Culture"], "messages": messages,
            "first_aspect": "Economy", "second_aspect": None, "annotated": False, "tag": "round_1"}


def curiosity_file(tmp_path: Path, dialogs: list[dict]) -> Path:
    path = tmp_path / "curiosity_dialogs.test.json"
    path.write_text(json.dumps({"dialogs": dialogs, "db_checksum": "abc123"}))
    return path


def test_it_labels_imported_dialogs_and_writes_the_majority_back(tmp_path: Path, people: People) -> None:
    call_command("import_dataset", "curiosity-acts", str(curiosity_file(tmp_path, [dialog(7), dialog(8)])), "--job", "cur")
    job = Job.objects.get(slug="cur")
    assert (job.overlap, Item.objects.filter(job=job).count()) == (2, 2)
    served = assignment_next(job=job, worker=people.alice).assignment.item
    assert served.key == "7" and served.payload["aspects"] == ["Economy", "Culture"]
    answer_submit(item_id=served.pk, worker=people.alice, acts=[["request_topic"], ["inform_response"], []])
    assert assignment_next(job=job, worker=people.bob).assignment.item_id == served.pk
    answer_submit(item_id=served.pk, worker=people.bob, acts=[["request_aspect"], ["inform_response"], ["feedback_positive"]])
    out = tmp_path / "labeled.json"
    assert export_curiosity_acts(job=job, path=out) == 2
    data = json.loads(out.read_text())
    assert data["db_checksum"] == "abc123"
    first, second = data["dialogs"]
    # >= half of 2 annotators: one vote is enough.
    assert [m["dialog_acts"] for m in first["messages"]] == [["request_topic", "request_aspect"], ["inform_response"], ["feedback_positive"]]
    assert first["annotated"] is True and second["annotated"] is False
    assert [m["dialog_acts"] for m in second["messages"]] == [[], [], []]
    assert first["messages"][1]["message_id"] == "71" and first["tag"] == "round_1"


def test_it_imports_labeled_dialogs_as_gold(tmp_path: Path, acts_job: Job) -> None:
    labeled = dialog(9, [["request_topic"], ["inform_response", "offer_aspect"], []])
    call_command("import_dataset", "curiosity-acts", str(curiosity_file(tmp_path, [labeled])), "--job", acts_job.slug, "--role", "gold")
    gold = Item.objects.get(job=acts_job, role=ItemRole.GOLD)
    assert gold.gold == {"acts": [["request_topic"], ["inform_response", "offer_aspect"], []]}


def test_it_refuses_unknown_acts_in_gold_dialogs(tmp_path: Path) -> None:
    bad = dialog(9, [["request_topic"], ["inform_everything"], []])
    with pytest.raises(CommandError, match="dialog_id 9, message 1: unknown dialog act 'inform_everything'"):
        call_command("import_dataset", "curiosity-acts", str(curiosity_file(tmp_path, [bad])), "--role", "gold")
    assert not Job.objects.exists()


def test_the_file_level_keys_come_back_in_the_files_order(tmp_path: Path) -> None:
    path = tmp_path / "curiosity_dialogs.val.json"
    path.write_text(json.dumps({"source_checksum": "s1", "dialogs": [dialog(7)], "db_checksum": "abc123",
                                "generated_time": 1571783665, "unannotated_dataset_checksum": "u1"}))
    call_command("import_dataset", "curiosity-acts", str(path), "--job", "ordered")
    out = tmp_path / "labeled.json"
    export_curiosity_acts(job=Job.objects.get(slug="ordered"), path=out)
    assert list(json.loads(out.read_text())) == ["source_checksum", "dialogs", "db_checksum", "generated_time",
                                                 "unannotated_dataset_checksum"]


def test_export_dataset_writes_an_imported_job_back_as_the_export_page_does(tmp_path: Path, people: People) -> None:
    from research.targets import export_target_for_job, export_target_write

    call_command("import_dataset", "curiosity-acts", str(curiosity_file(tmp_path, [dialog(7), dialog(8)])), "--job", "cur")
    job = Job.objects.get(slug="cur")
    item = assignment_next(job=job, worker=people.alice).assignment.item
    answer_submit(item_id=item.pk, worker=people.alice, acts=[["request_topic"], ["inform_response"], []])
    direct = tmp_path / "direct.json"
    export_curiosity_acts(job=job, path=direct)
    call_command("export_dataset", "curiosity-acts", "--job", "cur", "--out", str(tmp_path / "command"), stdout=io.StringIO())
    assert (tmp_path / "command" / "cur_curiosity_dialogs.json").read_bytes() == direct.read_bytes()
    target = export_target_for_job(job=job)
    assert (target.dataset, target.label) == ("curiosity-acts", "Curiosity dialogs with their acts")
    assert target.command == "manage.py export_dataset curiosity-acts --job cur --out DIR"
    assert export_target_write(target, tmp_path / "page").counts == {"cur_curiosity_dialogs.json": 2}
    assert (tmp_path / "page" / "cur_curiosity_dialogs.json").read_bytes() == direct.read_bytes()


def test_export_dataset_refuses_a_job_not_imported_from_a_curiosity_file(tmp_path: Path, acts_job: Job) -> None:
    with pytest.raises(CommandError, match="give --job SLUG"):
        call_command("export_dataset", "curiosity-acts", "--out", str(tmp_path), stdout=io.StringIO())
    with pytest.raises(CommandError, match="no annotation job 'nope'"):
        call_command("export_dataset", "curiosity-acts", "--job", "nope", "--out", str(tmp_path), stdout=io.StringIO())
    with pytest.raises(CommandError, match=f"job {acts_job.slug!r} was not imported from a Curiosity file"):
        call_command("export_dataset", "curiosity-acts", "--job", acts_job.slug, "--out", str(tmp_path), stdout=io.StringIO())
    assert not any(tmp_path.iterdir())
