from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.models import Article, KnowledgeSource, Sentence

pytestmark = pytest.mark.django_db
WriteJsonl = Callable[[list[object]], Path]

WIKIEXTRACTOR = {
    "id": "12",
    "url": "https://en.wikipedia.org/wiki?curid=12",
    "title": "Anarchism",
    "text": "Anarchism is a political philosophy. It is sceptical of authority.\n\nHistory\n\nThe earliest...",
}


def run(*args: object) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_knowledge", *args, stdout=out, stderr=err, verbosity=0)
    return out.getvalue(), err.getvalue()


def test_it_imports_the_first_paragraph_as_lead_sentences(write_jsonl: WriteJsonl) -> None:
    run("jsonl", write_jsonl([WIKIEXTRACTOR]), "--source", "wiki")

    article = Article.objects.get(source__slug="wiki", title="Anarchism")
    assert article.lead == "Anarchism is a political philosophy. It is sceptical of authority."
    assert list(article.sentences.values_list("section", "position", "text")) == [
        ("", 0, "Anarchism is a political philosophy."),
        ("", 1, "It is sceptical of authority."),
    ]


def test_it_creates_the_source_with_its_name_and_language(write_jsonl: WriteJsonl) -> None:
    run("jsonl", write_jsonl([WIKIEXTRACTOR]), "--source", "dewiki", "--name", "German", "--language", "de")

    source = KnowledgeSource.objects.get(slug="dewiki")
    assert (source.name, source.language) == ("German", "de")


def test_it_skips_a_title_repeated_as_the_first_line(write_jsonl: WriteJsonl) -> None:
    run("jsonl", write_jsonl([{"title": "Dog", "text": "Dog\n\nThe dog is a mammal."}]), "--source", "wiki")

    assert Article.objects.get(title="Dog").lead == "The dog is a mammal."


def test_it_prints_a_summary(write_jsonl: WriteJsonl) -> None:
    out, _ = run("jsonl", write_jsonl([WIKIEXTRACTOR]), "--source", "wiki")

    assert "Imported 1 articles, 2 sentences into 'wiki'; skipped 0" in out


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"title": "Broken", "text": ', "line 2: invalid JSON"),
        ('["Dog", "The dog barks."]', "line 2: expected a JSON object, got list"),
        ('{"text": "No title here."}', "line 2: missing 'title'"),
        ('{"title": "  ", "text": "Blank title."}', "line 2: empty 'title'"),
        ('{"title": 7, "text": "Numbers."}', "line 2: 'title' must be a string, not int"),
        ('{"title": "Dog"}', "line 2: missing text for 'Dog'"),
        ('{"title": "Dog", "text": ""}', "line 2: empty text for 'Dog'"),
        ('{"title": "Dog", "text": ["list"]}', "line 2: the text of 'Dog' must be a string, not list"),
        ('{"title": "' + "x" * 301 + '", "text": "Long."}', "line 2: 'title' is longer than 300 characters"),
    ],
)
def test_it_fails_on_a_bad_line_naming_it_and_writes_nothing(write_jsonl: WriteJsonl, line: str, problem: str) -> None:
    path = write_jsonl([WIKIEXTRACTOR, line, {"title": "Cat", "text": "Cats purr."}])

    with pytest.raises(CommandError, match=problem):
        run("jsonl", path, "--source", "wiki")

    assert not KnowledgeSource.objects.exists()
    assert not Article.objects.exists()
    assert not Sentence.objects.exists()


def test_it_reports_invalid_utf8_with_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"title": "Caf\xe9", "text": "Coffee."}\n')

    with pytest.raises(CommandError, match="line 1: not valid UTF-8"):
        run("jsonl", path, "--source", "wiki")


def test_it_skips_bad_lines_and_imports_the_rest(write_jsonl: WriteJsonl) -> None:
    path = write_jsonl([WIKIEXTRACTOR, "{oops", {"title": "Cat", "text": "Cats purr."}, {"title": ""}])

    out, err = run("jsonl", path, "--source", "wiki", "--on-error", "skip")

    assert set(Article.objects.values_list("title", flat=True)) == {"Anarchism", "Cat"}
    assert "skipped line 2: invalid JSON" in err
    assert "skipped line 4: empty 'title'" in err
    assert "Skipped 2 bad records." in err
    assert "skipped 2 (0 already present, 2 bad)" in out


def test_it_skips_titles_already_in_the_source(write_jsonl: WriteJsonl) -> None:
    path = write_jsonl([WIKIEXTRACTOR, {"title": "Cat", "text": "Cats purr."}])
    run("jsonl", path, "--source", "wiki")

    out, _ = run("jsonl", path, "--source", "wiki")

    assert Article.objects.count() == 2
    assert Sentence.objects.count() == 3
    assert "Imported 0 articles, 0 sentences into 'wiki'; skipped 2 (2 already present, 0 bad)" in out


def test_it_imports_a_title_again_into_another_source(write_jsonl: WriteJsonl) -> None:
    path = write_jsonl([WIKIEXTRACTOR])
    run("jsonl", path, "--source", "wiki")

    run("jsonl", path, "--source", "other")

    assert Article.objects.filter(title="Anarchism").count() == 2


def test_it_keeps_the_first_of_titles_repeated_in_one_file(write_jsonl: WriteJsonl) -> None:
    path = write_jsonl([{"title": "Cat", "text": "Cats purr."}, {"title": "Cat", "text": "Cats hunt."}])

    out, _ = run("jsonl", path, "--source", "wiki")

    assert Article.objects.get(title="Cat").lead == "Cats purr."
    assert "skipped 1 (1 already present" in out


def test_it_reads_only_the_first_records_with_limit(write_jsonl: WriteJsonl) -> None:
    path = write_jsonl([{"title": f"T{n}", "text": f"Text {n}."} for n in range(5)])

    run("jsonl", path, "--source", "wiki", "--limit", "3")

    assert sorted(Article.objects.values_list("title", flat=True)) == ["T0", "T1", "T2"]


def test_it_needs_a_path_for_jsonl() -> None:
    with pytest.raises(CommandError, match="the jsonl format needs a path"):
        run("jsonl", "--source", "wiki")


def test_it_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        run("jsonl", tmp_path / "nope.jsonl", "--source", "wiki")


def test_it_refuses_a_bad_slug(write_jsonl: WriteJsonl) -> None:
    with pytest.raises(CommandError, match="--source 'not a slug'"):
        run("jsonl", write_jsonl([WIKIEXTRACTOR]), "--source", "not a slug")
