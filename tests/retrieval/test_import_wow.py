from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.models import Article, KnowledgeSource

pytestmark = pytest.mark.django_db
WriteJson = Callable[[object], Path]


def run(*args: object) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_knowledge", "wow", *args, stdout=out, stderr=err, verbosity=0)
    return out.getvalue(), err.getvalue()


def test_it_keeps_the_given_sentences(write_json: WriteJson) -> None:
    path = write_json({"Blue": ["Blue is a colour.", "It is between violet and cyan e.g. in a rainbow."]})

    run(path, "--source", "wow")

    article = Article.objects.get(source__slug="wow", title="Blue")
    assert list(article.sentences.values_list("text", flat=True)) == [
        "Blue is a colour.",
        "It is between violet and cyan e.g. in a rainbow.",
    ]
    assert article.lead == "Blue is a colour. It is between violet and cyan e.g. in a rainbow."


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("Not a list.", "record 2: the value of 'Red' must be a list of sentences, not str"),
        (["Fine.", 3], "record 2: the sentences of 'Red' must be a list of strings"),
        ([], "record 2: no sentences for 'Red'"),
        (["  "], "record 2: no sentences for 'Red'"),
    ],
)
def test_it_fails_on_a_bad_record_naming_its_index_and_writes_nothing(
    write_json: WriteJson, value: object, problem: str
) -> None:
    path = write_json({"Blue": ["Blue is a colour."], "Red": value})

    with pytest.raises(CommandError, match=problem):
        run(path, "--source", "wow")

    assert not KnowledgeSource.objects.exists()
    assert not Article.objects.exists()


def test_it_skips_bad_records_and_imports_the_rest(write_json: WriteJson) -> None:
    path = write_json({"Blue": ["Blue is a colour."], "Red": None, "Green": ["Green is a colour."]})

    _, err = run(path, "--source", "wow", "--on-error", "skip")

    assert set(Article.objects.values_list("title", flat=True)) == {"Blue", "Green"}
    assert "skipped record 2: the value of 'Red' must be a list of sentences, not NoneType" in err


@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_it_refuses_a_file_that_is_not_a_json_object(write_json: WriteJson, on_error: str) -> None:
    with pytest.raises(CommandError, match="expected a JSON object keyed by title, got list"):
        run(write_json([["Blue is a colour."]]), "--source", "wow", "--on-error", on_error)

    assert not KnowledgeSource.objects.exists()


def test_it_refuses_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"Blue": ["Blue is a colour."],\n  "Red": [oops]}')

    with pytest.raises(CommandError, match="invalid JSON at line 2, column"):
        run(path, "--source", "wow")
