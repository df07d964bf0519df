from __future__ import annotations

import sqlite3
import unicodedata
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.models import Article

pytestmark = pytest.mark.django_db


def drqa_db(path: Path, docs: list[tuple[str, str]]) -> Path:
    """A document store the way DrQA's build_db.py writes one (titles NFD-normalised)."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE documents (id PRIMARY KEY, text);")
    connection.executemany("INSERT INTO documents VALUES (?,?)", [(unicodedata.normalize("NFD", t), x) for t, x in docs])
    connection.commit()
    connection.close()
    return path


def run(*args: object) -> str:
    out = StringIO()
    call_command("import_knowledge", *map(str, args), stdout=out, stderr=StringIO(), verbosity=0)
    return out.getvalue()


def test_it_imports_titles_in_nfc_and_the_lead_paragraph(tmp_path: Path) -> None:
    db = drqa_db(tmp_path / "docs.db", [
        ("Pokémon", "Pokémon\n\nPokémon is a media franchise. It began in 1996.\n\nThe franchise has games."),
        ("Zürich", "Zürich\n\nZürich is the largest city in Switzerland."),
    ])

    run("drqa", db, "--source", "drqa")

    article = Article.objects.get(title="Pokémon")  # NFC, as typed
    assert article.lead == "Pokémon is a media franchise. It began in 1996."
    assert list(article.sentences.values_list("text", flat=True)) == ["Pokémon is a media franchise.", "It began in 1996."]
    assert Article.objects.filter(title="Zürich").exists()


def test_it_resumes_after_the_last_checkpointed_rowid(tmp_path: Path) -> None:
    db = drqa_db(tmp_path / "docs.db", [(f"Doc {i}", f"Doc {i}\n\nDoc {i} is a document.") for i in range(7)])
    run("drqa", db, "--source", "drqa", "--limit", "4")
    assert Article.objects.count() == 4

    run("drqa", db, "--source", "drqa")

    assert Article.objects.count() == 7


def test_it_refuses_a_file_without_a_documents_table(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()

    with pytest.raises(CommandError, match="not a DrQA document store"):
        run("drqa", other, "--source", "drqa", "--checkpoint", tmp_path / "cp.json")
