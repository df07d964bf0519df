"""Knowledge whose text holds a lone UTF-16 surrogate is a bad record naming the line (JSON Lines)
or record (one JSON object) and field: with the default --on-error fail nothing is imported (issue 47)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.models import Article, KnowledgeSource

pytestmark = pytest.mark.django_db


def run(*args: object) -> None:
    call_command("import_knowledge", *args, verbosity=0)


def test_a_jsonl_line_with_a_lone_surrogate_is_refused(write_jsonl: Callable[[list[object]], Path]) -> None:
    lines = [{"title": "Tea", "text": "Tea is a drink."}, {"title": "Coffee", "text": "Coffee \udfff is a drink."}]
    with pytest.raises(CommandError, match=r"line 2: text holds a lone surrogate \(U\+DFFF\).*nothing was imported"):
        run("jsonl", write_jsonl(lines), "--source", "kb")
    assert not KnowledgeSource.objects.exists() and not Article.objects.exists()


def test_a_wow_record_with_a_lone_surrogate_is_refused(write_json: Callable[[object], Path]) -> None:
    path = write_json({"Tea": ["Tea is a drink."], "Coffee": ["It is brewed.", "Bitter \ud83d."]})
    with pytest.raises(CommandError, match=r"record 2: Coffee\[1\] holds a lone surrogate \(U\+D83D\)"):
        run("wow", path, "--source", "kb")
    assert not KnowledgeSource.objects.exists() and not Article.objects.exists()
