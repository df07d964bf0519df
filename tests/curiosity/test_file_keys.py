"""A Curiosity split file's own keys (the release's `source_checksum`, `generated_time`,
`unannotated_dataset_checksum` beside `db_checksum`) survive import → export byte for byte, and the
split is the file's own unless a re-split is asked for."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.exporters import ExportOptions, export_dataset
from collect.tasktypes.curiosity.exporter import DB_FILE, FILES
from collect.tasktypes.curiosity.importer import CuriosityImportError, curiosity_import
from collect.models import Room
from collect.tasktypes.curiosity.models import CuriosityDialog
from tests.curiosity.dialogs import dialog, md5, quirky
from tests.curiosity.factdb import write_factdb

pytestmark = pytest.mark.django_db


def write_release_file(path: Path, dialogs: list[dict], before: dict, after: dict) -> Path:
    """A split file laid out one dialog a line, with file-level keys before and after the dialogs."""
    head = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in before.items())
    tail = "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in after.items())
    body = ",\n".join(json.dumps(d) for d in dialogs)
    path.write_text("{" + head + '"dialogs": [\n' + body + "\n]" + tail + "}\n", encoding="utf-8")
    return path


@pytest.fixture
def release(tmp_path: Path, factdb_dir: Path) -> dict:
    folder = tmp_path / "release"
    folder.mkdir()
    ids = write_factdb(folder / DB_FILE)
    checksum = md5(folder / DB_FILE)
    keys = {
        "val": ({"source_checksum": "5d41402abc4b2a76b9719d911017c592"},
                {"db_checksum": checksum, "generated_time": 1571783665, "unannotated_dataset_checksum": "7d793037a0760186574b0282f2f435e7"}),
        "test_zero": ({}, {"db_checksum": checksum, "source_checksum": None, "generated_time": "2019-10-22T22:34:25"}),
    }
    dialogs = {"val": [dialog(21, "Namibia", ids["Namibia"]), dialog(22, "Tahiti", ids["Tahiti"])],
               "test_zero": quirky([dialog(41, "Tahiti", ids["Tahiti"])])}
    files = {split: write_release_file(folder / FILES[split], dialogs[split], *keys[split]) for split in keys}
    return {"files": files, "db": folder / DB_FILE, "ids": ids, "checksum": checksum}


def test_the_file_level_keys_come_back_byte_for_byte(release: dict, tmp_path: Path) -> None:
    for split in ("val", "test_zero"):
        call_command("import_dataset", "curiosity", str(release["files"][split]), "--campaign", "curio", stdout=io.StringIO())
    out = tmp_path / "out"
    call_command("export_dataset", "curiosity", "--out", str(out), stdout=io.StringIO())
    for split in ("val", "test_zero"):
        assert (out / FILES[split]).read_bytes() == release["files"][split].read_bytes(), split
    # A split no file came from is written with the standard two keys.
    assert json.loads((out / FILES["train"]).read_text()) == {"dialogs": [], "db_checksum": release["checksum"]}


def test_a_second_file_of_the_same_split_must_agree(release: dict, tmp_path: Path) -> None:
    curiosity_import(path=release["files"]["val"], campaign="curio")
    other = tmp_path / "other" / FILES["val"]
    other.parent.mkdir()
    write_release_file(other, [dialog(23, "Namibia", release["ids"]["Namibia"])], {},
                       {"db_checksum": release["checksum"], "generated_time": 1})
    with pytest.raises(CuriosityImportError, match="already holds a val file whose file-level keys differ"):
        curiosity_import(path=other, campaign="curio")
    assert CuriosityDialog.objects.count() == 2
    curiosity_import(path=release["files"]["val"], campaign="curio")  # the same file again: nothing new, no conflict


def test_a_file_whose_name_has_no_split_needs_one_given(release: dict, tmp_path: Path) -> None:
    renamed = tmp_path / "sample.json"
    renamed.write_bytes(release["files"]["val"].read_bytes())
    with pytest.raises(CommandError, match=r"sample.json does not name its split .* --split hash"):
        call_command("import_dataset", "curiosity", str(renamed), "--facts", str(release["db"]))
    assert not Room.objects.exists()
    with pytest.raises(CommandError, match="--split must be one of train, val, test, test_zero or hash"):
        call_command("import_dataset", "curiosity", str(renamed), "--split", "dev", "--facts", str(release["db"]))
    call_command("import_dataset", "curiosity", str(renamed), "--split", "val", "--facts", str(release["db"]),
                 "--campaign", "curio", stdout=io.StringIO())
    result = export_dataset("curiosity", tmp_path / "out", ExportOptions(campaigns=("curio",), valid=0.0, test=0.0))
    assert result.counts[FILES["val"]] == 2 and result.counts[FILES["train"]] == 0
    assert (tmp_path / "out" / FILES["val"]).read_bytes() == renamed.read_bytes()


def test_a_resplit_is_done_only_when_asked(release: dict, tmp_path: Path) -> None:
    call_command("import_dataset", "curiosity", str(release["files"]["val"]), "--split", "hash", "--campaign", "curio",
                 stdout=io.StringIO())
    assert set(CuriosityDialog.objects.values_list("split", flat=True)) == {""}
    result = export_dataset("curiosity", tmp_path / "out", ExportOptions(valid=0.0, test=0.0, holdout_topics=0.0))
    assert result.counts[FILES["train"]] == 2 and result.counts[FILES["val"]] == 0
