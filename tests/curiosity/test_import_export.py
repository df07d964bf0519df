"""Import of Curiosity dialog files, and import → export reproducing every field
(docs/schemas.md#curiosity)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collect.exporters import ExportOptions, export_dataset
from collect.tasktypes.curiosity.exporter import DB_FILE, FILES
from collect.tasktypes.curiosity.importer import CuriosityImportError, curiosity_import
from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.curiosity.models import CuriosityDialog
from tests.curiosity.dialogs import dialog, md5, quirky, write_dialogs
from tests.curiosity.factdb import write_factdb

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(tmp_path: Path, factdb_dir: Path) -> dict:
    """A small release: the fact db and the four split files that refer to it."""
    folder = tmp_path / "release"
    folder.mkdir()
    db = folder / DB_FILE
    ids = write_factdb(db)
    checksum = md5(db)
    namibia, tahiti = ids["Namibia"], ids["Tahiti"]
    splits = {
        "train": [dialog(11, "Namibia", namibia), dialog(12, "Tahiti", tahiti), dialog(13, "Namibia", namibia[3:])],
        "val": [dialog(21, "Namibia", namibia)],
        "test": [dialog(31, "Tahiti", tahiti)],
        "test_zero": quirky([dialog(41, "Tahiti", tahiti)]),
    }
    files = {split: write_dialogs(folder / FILES[split], dialogs, checksum) for split, dialogs in splits.items()}
    return {"db": db, "checksum": checksum, "files": files, "splits": splits}


def import_all(release: dict) -> None:
    curiosity_import(path=release["files"]["train"], facts=release["db"], campaign="imported")
    for split in ("val", "test", "test_zero"):
        curiosity_import(path=release["files"][split], campaign="imported")


def test_it_imports_dialogs_as_complete_rooms(release: dict) -> None:
    result = curiosity_import(path=release["files"]["train"], facts=release["db"], campaign="imported")
    assert (result.dialogs, result.messages, result.split) == (3, 12, "train")
    assert result.facts["facts"] == 37 and result.facts["mentions"] > 30
    campaign = Campaign.objects.get(slug="imported")
    assert campaign.protocol == "curiosity" and not campaign.is_active
    room = Room.objects.get(curiosity__dialog_id=12)
    assert room.status == RoomStatus.COMPLETE and room.topic == "Tahiti"
    assert {m.role for m in room.members.all()} == {"user", "assistant"}
    messages = list(Message.objects.filter(room=room).order_by("seq"))
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1].liked and messages[1].facts[0] == {"fid": release["splits"]["train"][1]["messages"][1]["facts"][0]["fid"], "used": True, "source": "known"}


def test_it_is_idempotent(release: dict) -> None:
    curiosity_import(path=release["files"]["train"], facts=release["db"], campaign="imported")
    again = curiosity_import(path=release["files"]["train"], facts=release["db"], campaign="imported")
    assert (again.dialogs, again.already_present) == (0, 3)
    assert CuriosityDialog.objects.count() == 3


def test_import_then_export_reproduces_the_release(release: dict, tmp_path: Path) -> None:
    import_all(release)
    out = tmp_path / "out"
    result = export_dataset("curiosity", out, ExportOptions(campaigns=("imported",)))
    assert result.counts == {FILES[s]: len(release["splits"][s]) for s in ("train", "val", "test", "test_zero")}
    # The fact db is the same file, so every db_checksum still holds.
    assert md5(out / DB_FILE) == release["checksum"]
    for split, path in release["files"].items():
        original = json.loads(path.read_text(encoding="utf-8"))
        exported = json.loads((out / FILES[split]).read_text(encoding="utf-8"))
        assert exported == original, split


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("dialog_id"), "'dialog_id' must be an integer"),
        (lambda d: d.update(focus_entity=""), "'focus_entity'"),
        (lambda d: d["messages"][1].update(sender="wizard"), "'sender' must be 'user' or 'assistant'"),
        (lambda d: d["messages"][1]["facts"].append({"fid": "x"}), "integer 'fid'"),
        (lambda d: d.update(user_id=[1]), "'user_id' must be a string or an integer"),
    ],
)
def test_it_refuses_a_malformed_dialog_and_writes_nothing(release: dict, tmp_path: Path, mutate, message: str) -> None:
    bad = dialog(99, "Namibia", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    mutate(bad)
    path = write_dialogs(tmp_path / "bad.json", [dialog(98, "Namibia", list(range(10))), bad], release["checksum"])
    with pytest.raises(CuriosityImportError, match=message):
        curiosity_import(path=path, facts=release["db"])
    assert not Room.objects.exists()


def test_it_needs_the_matching_fact_db(release: dict, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    write_factdb(other, {"Namibia": {"History": [("Only one fact.", [])]}})
    with pytest.raises(CuriosityImportError, match="md5 differs from db_checksum"):
        curiosity_import(path=release["files"]["val"], facts=other)
    not_json = tmp_path / "curiosity_dialogs.val.json"
    not_json.write_text("{nope", encoding="utf-8")
    with pytest.raises(CuriosityImportError, match="not a readable JSON file"):
        curiosity_import(path=not_json, facts=release["db"])
    assert not Room.objects.exists()


def test_the_commands_import_and_export_a_release(release: dict, tmp_path: Path) -> None:
    import io

    from django.core.management import call_command

    out = io.StringIO()
    # The fact db is found beside the file, where the Curiosity reader looks for it.
    call_command("import_dataset", "curiosity", str(release["files"]["train"]), stdout=out)
    assert "dialogs    3" in out.getvalue()
    slug = Campaign.objects.get(protocol="curiosity").slug
    assert f"into campaign {slug}: export it with `manage.py export_dataset curiosity --campaign {slug} --out DIR`" in out.getvalue()
    call_command("import_dataset", "curiosity", str(release["files"]["val"]), facts=release["db"], stdout=io.StringIO())
    export = tmp_path / "export"
    call_command("export_dataset", "curiosity", out=export, stdout=io.StringIO())
    for split in ("train", "val"):
        original = json.loads(release["files"][split].read_text(encoding="utf-8"))
        assert json.loads((export / FILES[split]).read_text(encoding="utf-8")) == original


def test_dialogs_imported_for_a_resplit_are_split_by_hash_and_unseen_topic(release: dict, tmp_path: Path) -> None:
    ids = write_factdb(tmp_path / "same.db")  # same content as the release's db
    dialogs = [dialog(100 + i, topic, ids[topic]) for i, topic in enumerate(["Namibia", "Tahiti"] * 20)]
    path = write_dialogs(tmp_path / "collected.json", dialogs, release["checksum"])
    with pytest.raises(CuriosityImportError, match="does not name its split"):
        curiosity_import(path=path, facts=release["db"], campaign="mixed")
    assert curiosity_import(path=path, facts=release["db"], campaign="mixed", split="hash").split == ""
    for seed in range(50):
        out = tmp_path / f"out-{seed}"
        result = export_dataset("curiosity", out, ExportOptions(seed=seed, holdout_topics=0.5, valid=0.2, test=0.2))
        if result.counts[FILES["test_zero"]] and result.counts[FILES["train"]]:
            break
    else:
        pytest.fail("no seed held out exactly one topic")
    topics = {
        split: {d["focus_entity"] for d in json.loads((out / FILES[split]).read_text(encoding="utf-8"))["dialogs"]}
        for split in ("train", "val", "test", "test_zero")
    }
    assert len(topics["test_zero"]) == 1
    assert not topics["test_zero"] & (topics["train"] | topics["val"] | topics["test"])
    assert sum(result.counts.values()) == 40


def test_it_refuses_to_mix_knowledge_sources(release: dict, tmp_path: Path) -> None:
    from collect.exporters import ExportError
    from retrieval.models import KnowledgeSource

    curiosity_import(path=release["files"]["val"], facts=release["db"], campaign="imported")
    Campaign.objects.create(slug="other", name="Other", protocol="curiosity",
                            knowledge_source=KnowledgeSource.objects.create(slug="other", name="Other"))
    with pytest.raises(ExportError, match="use 2 knowledge sources") as refused:
        export_dataset("curiosity", tmp_path / "out")
    # The refusal lists the campaigns to choose from, each with its source.
    assert "\n  imported (knowledge source" in str(refused.value) and "\n  other (knowledge source" in str(refused.value)
    assert export_dataset("curiosity", tmp_path / "out", ExportOptions(campaigns=("imported",))).total == 1
    with pytest.raises(ExportError, match="not Curiosity campaigns"):
        Campaign.objects.create(slug="wow", name="WoW", knowledge_source=KnowledgeSource.objects.get(slug="other"))
        export_dataset("curiosity", tmp_path / "out", ExportOptions(campaigns=("wow",)))


def test_the_export_carries_the_annotators_dialog_acts(release: dict, tmp_path: Path) -> None:
    from django.core.management import call_command

    from annotate.models import ItemMessage, Job
    from annotate.services.answers import answer_submit
    from annotate.services.assignment import assignment_next
    from collect.models import Worker

    curiosity_import(path=release["files"]["train"], facts=release["db"], campaign="imported")
    call_command("create_annotation_job", "acts", "--kind", "dialog_acts", "--campaign", "imported", "--overlap", "2")
    job = Job.objects.get(slug="acts")
    labeled_item = ItemMessage.objects.filter(item__job=job, message__room__curiosity__dialog_id=12).values_list("item_id", flat=True).first()
    votes = {
        "a1": [["request_topic"], ["inform_response"], [], ["inform_related"]],
        "a2": [["request_topic"], ["inform_response", "offer_aspect"], ["feedback_positive"], []],
    }
    for name, acts in votes.items():
        worker = Worker.objects.create(external_id=name)
        while (assigned := assignment_next(job=job, worker=worker).assignment) is not None:
            blank = [[] for _ in assigned.item.payload["messages"]]
            answer_submit(item_id=assigned.item_id, worker=worker, acts=acts if assigned.item_id == labeled_item else blank)
    export_dataset("curiosity", tmp_path / "out", ExportOptions(campaigns=["imported"]))
    exported = {d["dialog_id"]: d for d in json.loads((tmp_path / "out" / FILES["train"]).read_text())["dialogs"]}
    # At least half of the 2 annotators: any act either of them gave.
    assert [m["dialog_acts"] for m in exported[12]["messages"]] == [
        ["request_topic"], ["inform_response", "offer_aspect"], ["feedback_positive"], ["inform_related"]
    ]
    assert all(m["dialog_acts"] == [] for m in exported[11]["messages"])
