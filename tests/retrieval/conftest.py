from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from retrieval.importers.load import articles_import
from retrieval.importers.records import Record
from retrieval.models import KnowledgeSource

MakeSource = Callable[..., KnowledgeSource]


@pytest.fixture(autouse=True)
def index_dir(settings: Settings, tmp_path: Path) -> Path:
    settings.INDEX_DIR = tmp_path / "indexes"
    return settings.INDEX_DIR


@pytest.fixture
def make_source(db: None) -> MakeSource:
    """A knowledge source holding {title: lead paragraph}, stored the way the importer stores it."""

    def make(articles: dict[str, str], *, slug: str = "kb", language: str = "en") -> KnowledgeSource:
        records = [Record(title, lead, None, "") for title, lead in articles.items()]
        articles_import(slug=slug, name=slug, language=language, records=records)
        return KnowledgeSource.objects.get(slug=slug)

    return make


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[list[object]], Path]:
    """A .jsonl file from a list of objects (dumped as JSON) or raw strings (written as they are)."""

    def write(lines: list[object]) -> Path:
        path = tmp_path / "articles.jsonl"
        text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
        path.write_text(text + "\n", encoding="utf-8")
        return path

    return write


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[object], Path]:
    def write(data: object) -> Path:
        path = tmp_path / "knowledge.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return write
