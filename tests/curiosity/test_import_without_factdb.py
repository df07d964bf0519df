"""Curiosity dialogs imported without their fact db (`wiki_sql.sqlite.db`): every fact reference
is kept, the dialogs re-export identically and can be labeled for dialog acts, the missing fact texts
are said plainly, and importing the db later attaches them."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from annotate.models import Item, Job
from collect.exporters import ExportOptions, export_dataset
from collect.tasktypes.curiosity.exporter import DB_FILE, FILES
from collect.tasktypes.curiosity.importer import curiosity_import
from collect.models import Campaign, Message
from retrieval.curiosity.factdb import factdb_missing
from retrieval.models import Sentence
from tests.curiosity.dialogs import dialog, md5, quirky, write_dialogs
from tests.curiosity.factdb import write_factdb

pytestmark = pytest.mark.django_db


@pytest.fixture
def dialogs_only(tmp_path: Path, factdb_dir: Path) -> dict:
    """A release's split files in a folder of their own, and its fact db somewhere else."""
    db = tmp_path / "elsewhere" / DB_FILE
    db.parent.mkdir()
    ids = write_factdb(db)
    checksum = md5(db)
    folder = tmp_path / "dialogs"
    folder.mkdir()
    splits = {
        "train": [dialog(11, "Namibia", ids["Namibia"]), dialog(12, "Tahiti", ids["Tahiti"])],
        "test_zero": quirky([dialog(41, "Tahiti", ids["Tahiti"])]),
    }
    files = {split: write_dialogs(folder / FILES[split], d, checksum) for split, d in splits.items()}
    return {"db": db, "checksum": checksum, "files": files, "splits": splits}


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def exported_equals_original(out: Path, release: dict) -> None:
    for split, path in release["files"].items():
        original = json.loads(path.read_text(encoding="utf-8"))
        assert json.loads((out / FILES[split]).read_text(encoding="utf-8")) == original, split


def test_it_imports_dialogs_without_their_fact_db_and_says_the_texts_are_missing(dialogs_only: dict, tmp_path: Path) -> None:
    said = run("import_dataset", "curiosity", str(dialogs_only["files"]["train"]))
    assert "fact texts MISSING" in said and "--facts" in said
    result = curiosity_import(path=dialogs_only["files"]["test_zero"])
    assert result.facts_missing and result.dialogs == 1
    campaign = Campaign.objects.get()
    assert factdb_missing(source_id=campaign.knowledge_source_id) == dialogs_only["checksum"]
    stored = Message.objects.filter(room__curiosity__dialog_id=12).order_by("seq")[1]
    assert stored.facts == dialogs_only["splits"]["train"][1]["messages"][1]["facts"]  # fid, used, source as given

    out = tmp_path / "out"
    said = run("export_dataset", "curiosity", "--out", str(out))
    assert f"{DB_FILE} not written" in said and "fact texts are missing" in said
    assert not (out / DB_FILE).exists()
    exported_equals_original(out, dialogs_only)  # every field, db_checksum included


def test_dialogs_without_their_fact_db_can_be_labeled_for_dialog_acts(dialogs_only: dict) -> None:
    curiosity_import(path=dialogs_only["files"]["train"], campaign="no-db")
    call_command("create_annotation_job", "acts", "--kind", "dialog_acts", "--campaign", "no-db", stdout=io.StringIO())
    items = Item.objects.filter(job=Job.objects.get(slug="acts"))
    assert items.count() == 2
    assert all(len(item.payload["messages"]) == 4 for item in items)


def test_importing_the_fact_db_later_attaches_the_fact_texts(dialogs_only: dict, tmp_path: Path) -> None:
    for split in ("train", "test_zero"):
        curiosity_import(path=dialogs_only["files"][split])
    source = Campaign.objects.get().knowledge_source
    assert not Sentence.objects.filter(article__source=source).exists()

    # The db comes with a later import (here: the same file again, whose dialogs are already in).
    said = run("import_dataset", "curiosity", str(dialogs_only["files"]["train"]), "--facts", str(dialogs_only["db"]))
    assert "MISSING" not in said and "present    2" in said
    assert factdb_missing(source_id=source.pk) is None
    fids = {f["fid"] for m in Message.objects.filter(room__campaign__knowledge_source=source) for f in m.facts}
    texts = dict(Sentence.objects.filter(article__source=source, fact_id__in=fids).values_list("fact_id", "text"))
    assert set(texts) == fids and all(texts.values())

    out = tmp_path / "out"
    result = export_dataset("curiosity", out, ExportOptions())
    assert result.notes == [] and md5(out / DB_FILE) == dialogs_only["checksum"]
    exported_equals_original(out, dialogs_only)


def test_a_later_file_without_the_db_uses_the_one_in_the_store(dialogs_only: dict) -> None:
    curiosity_import(path=dialogs_only["files"]["train"], facts=dialogs_only["db"])
    copy = dialogs_only["files"]["test_zero"].parent / "more" / FILES["test_zero"]
    copy.parent.mkdir()
    shutil.copy(dialogs_only["files"]["test_zero"], copy)
    assert not curiosity_import(path=copy).facts_missing
