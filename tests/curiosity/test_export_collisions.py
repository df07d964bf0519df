"""The Curiosity export refuses two dialogs with one dialog_id, before it writes anything."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.exporters import ExportError, ExportOptions, export_dataset
from collect.tasktypes.curiosity.exporter import DB_FILE, FILES
from collect.tasktypes.curiosity.importer import curiosity_import
from collect.models import Campaign, Message, RoomStatus
from tests.collect.conftest import make_room
from tests.curiosity.dialogs import dialog, md5, write_dialogs

pytestmark = pytest.mark.django_db

FIDS = list(range(1, 11))


def import_dialogs(tmp_path: Path, factdb_path: Path, ids: list[int], *, campaign: str, split: str = "train") -> None:
    """Dialogs with these ids, imported from a split file on the store's fact db (facts_source)."""
    path = write_dialogs(tmp_path / FILES[split], [dialog(i, "Namibia", FIDS) for i in ids], md5(factdb_path))
    curiosity_import(path=path, campaign=campaign)


def collected(campaign: Campaign, *, talk: bool = True) -> int:
    """A complete room collected in Groundwork (with two messages unless not `talk`); its dialog_id."""
    paired = make_room(campaign)
    if talk:
        for seq, seat in enumerate((paired.user, paired.assistant), start=1):
            Message.objects.create(
                room=paired.room, seq=seq, sender=seat.assignment, role=seat.assignment.role, client_id=f"c{seq}", text="hi"
            )
    paired.room.status = RoomStatus.COMPLETE
    paired.room.save(update_fields=["status"])
    return paired.dialog.dialog_id


def test_it_refuses_a_release_imported_into_two_campaigns(facts_source, factdb_path: Path, tmp_path: Path) -> None:
    import_dialogs(tmp_path, factdb_path, [11, 12, 13], campaign="first")
    import_dialogs(tmp_path, factdb_path, [12, 13, 14], campaign="second", split="val")
    out = tmp_path / "out"
    with pytest.raises(ExportError) as refused:
        export_dataset("curiosity", out)
    message = str(refused.value)
    assert message.startswith("2 dialog_id(s) would each be carried by more than one exported dialog")
    assert "dialog_id 12: campaign 'first' (imported from curiosity_dialogs.train.json); " \
           "campaign 'second' (imported from curiosity_dialogs.val.json)" in message
    assert "dialog_id 13:" in message and "dialog_id 11" not in message and "dialog_id 14" not in message
    assert not out.exists()
    assert export_dataset("curiosity", out, ExportOptions(campaigns=("first",))).total == 3


def test_it_refuses_a_collected_dialog_id_that_an_imported_one_has(campaign: Campaign, factdb_path: Path, tmp_path: Path) -> None:
    dialog_id = collected(campaign)
    import_dialogs(tmp_path, factdb_path, [dialog_id, dialog_id + 100], campaign="imported")
    with pytest.raises(ExportError) as refused:
        export_dataset("curiosity", tmp_path / "out")
    assert str(refused.value).endswith(
        f"dialog_id {dialog_id}: campaign '{campaign.slug}' (collected); "
        "campaign 'imported' (imported from curiosity_dialogs.train.json)"
    )


def test_a_room_left_out_of_the_export_shares_no_id(campaign: Campaign, factdb_path: Path, tmp_path: Path) -> None:
    # A room without messages is skipped, so its dialog_id never reaches a file.
    dialog_id = collected(campaign, talk=False)
    import_dialogs(tmp_path, factdb_path, [dialog_id], campaign="imported")
    result = export_dataset("curiosity", tmp_path / "out")
    assert (result.total, result.skipped_empty) == (1, 1)


def test_the_command_says_why_and_leaves_the_last_export_as_it_was(facts_source, factdb_path: Path, tmp_path: Path) -> None:
    import_dialogs(tmp_path, factdb_path, [11, 12], campaign="first")
    out = tmp_path / "out"
    call_command("export_dataset", "curiosity", out=out, stdout=io.StringIO())
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    assert set(before) == {DB_FILE, *FILES.values()}
    import_dialogs(tmp_path, factdb_path, [12], campaign="second")
    with pytest.raises(CommandError, match="dialog_id 12: campaign 'first' .*; campaign 'second'"):
        call_command("export_dataset", "curiosity", out=out, stdout=io.StringIO())
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def test_it_names_the_first_ten_shared_ids_and_counts_the_rest(facts_source, factdb_path: Path, tmp_path: Path) -> None:
    ids = list(range(1, 13))
    import_dialogs(tmp_path, factdb_path, ids, campaign="first")
    import_dialogs(tmp_path, factdb_path, ids, campaign="second")
    with pytest.raises(ExportError) as refused:
        export_dataset("curiosity", tmp_path / "out")
    named = [line.split(":")[0].strip() for line in str(refused.value).splitlines()[1:]]
    assert named == [f"dialog_id {i}" for i in range(1, 11)] + ["... and 2 more"]
