from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.importers import wikiextractor
from retrieval.importers.records import BadRecord, Record
from retrieval.importers.resumable import articles_import_resumable, checkpoint_path_for
from retrieval.models import Article, Sentence

pytestmark = pytest.mark.django_db

# WikiExtractor --json --sections: the title line, the lead, then "Heading." before each section.
ANARCHISM = {
    "id": "12", "url": "https://en.wikipedia.org/wiki?curid=12", "title": "Anarchism",
    "text": "Anarchism\n\nAnarchism is a political philosophy. It is sceptical of authority.\n"
            "It calls for the abolition of the state.\nHistory.\nThe earliest anarchist themes can be found in the "
            "6th century BC. Modern anarchism emerged from the Enlightenment.\nEtymology.\nThe word derives from "
            "the Greek anarkhia, meaning without a ruler.",
}


def write_lines(path: Path, objects: list[object]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def articles(n: int) -> list[dict[str, str]]:
    return [{"title": f"Article {i}", "text": f"Article {i}\n\nArticle {i} is number {i}. It is short."} for i in range(n)]


def run(*args: object) -> str:
    out = StringIO()
    call_command("import_knowledge", *map(str, args), stdout=out, stderr=StringIO(), verbosity=0)
    return out.getvalue()


def test_sections_become_aspects_and_sentences_keep_their_position(tmp_path: Path) -> None:
    run("wikiextractor", write_lines(tmp_path / "wiki.jsonl", [ANARCHISM]), "--source", "wiki")

    article = Article.objects.get(title="Anarchism")
    assert article.lead == "Anarchism is a political philosophy. It is sceptical of authority."
    assert list(article.sentences.values_list("section", "position", "text")) == [
        ("", 0, "Anarchism is a political philosophy."),
        ("", 1, "It is sceptical of authority."),
        ("Introduction", 2, "It calls for the abolition of the state."),
        ("History", 3, "The earliest anarchist themes can be found in the 6th century BC."),
        ("History", 4, "Modern anarchism emerged from the Enlightenment."),
        ("Etymology", 5, "The word derives from the Greek anarkhia, meaning without a ruler."),
    ]


def test_html_headings_and_explicit_sections_are_aspects() -> None:
    lead, sections = wikiextractor.split_article(
        "Dog\nThe dog is a mammal.\n<h2>Name</h2>\nThe word dog is old.", "Dog",
        [{"title": "Behaviour", "text": "Dogs bark."}],
    )

    assert lead == "The dog is a mammal."
    assert sections == [("Name", "The word dog is old."), ("Behaviour", "Dogs bark.")]


def test_without_headings_only_the_lead_paragraph_is_kept() -> None:
    assert wikiextractor.split_article("Dog\n\nThe dog is a mammal.\nIt barks a lot at night.", "Dog", []) == (
        "The dog is a mammal.", [],
    )


def test_a_short_sentence_followed_by_a_short_line_is_not_a_heading() -> None:
    _, sections = wikiextractor.split_article("T\nLead.\nHistory.\nShort one.\nCareer.\n" + "A long paragraph. " * 5, "T", [])

    assert [name for name, _ in sections] == ["Introduction", "Career"]


def interrupted(records: Iterator[tuple[Record | BadRecord, int]], after: int) -> Iterator[tuple[Record | BadRecord, int]]:
    for number, item in enumerate(records):
        if number == after:
            raise KeyboardInterrupt
        yield item


def test_an_interrupted_import_resumes_without_duplicates(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "wiki.jsonl", articles(25))
    checkpoint = checkpoint_path_for(path, "wiki")

    with pytest.raises(KeyboardInterrupt):
        articles_import_resumable(
            slug="wiki", name="wiki", language="en", path=path, checkpoint=checkpoint, batch_size=10,
            reader=lambda p, position: interrupted(wikiextractor.read_from(p, position), after=17),
        )
    assert Article.objects.count() == 10  # the first batch was committed, the second was not
    assert json.loads(checkpoint.read_text())["records"] == 10

    out = run("wikiextractor", path, "--source", "wiki")

    assert Article.objects.count() == 25
    assert Sentence.objects.count() == 50
    assert sorted(Article.objects.values_list("title", flat=True)) == sorted(f"Article {i}" for i in range(25))
    assert "Checkpoint" in out and "complete" in out


def test_a_batch_committed_before_its_checkpoint_is_not_stored_twice(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "wiki.jsonl", articles(12))
    run("wikiextractor", path, "--source", "wiki", "--limit", "12")
    checkpoint_path_for(path, "wiki").unlink()  # as if the process died between commit and checkpoint

    out = run("wikiextractor", path, "--source", "wiki")

    assert Article.objects.count() == 12
    assert "12 already present" in out


def test_a_complete_import_is_not_read_again(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "wiki.jsonl", articles(3))
    run("wikiextractor", path, "--source", "wiki")

    assert "Imported 3 articles" in run("wikiextractor", path, "--source", "wiki")  # the saved totals
    assert Article.objects.count() == 3


def test_it_refuses_to_resume_a_changed_file(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "wiki.jsonl", articles(3))
    run("wikiextractor", path, "--source", "wiki", "--limit", "2")
    write_lines(path, articles(4))

    with pytest.raises(CommandError, match="older version of wiki.jsonl"):
        run("wikiextractor", path, "--source", "wiki")
    run("wikiextractor", path, "--source", "wiki", "--restart")
    assert Article.objects.count() == 4


def test_a_bad_line_stops_after_the_batches_before_it(tmp_path: Path) -> None:
    path = tmp_path / "wiki.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in articles(2)) + "{not json\n", encoding="utf-8")

    with pytest.raises(CommandError, match="line 3: invalid JSON"):
        run("wikiextractor", path, "--source", "wiki")
    assert Article.objects.count() == 2


def test_resumed_errors_name_the_right_line(tmp_path: Path) -> None:
    path = tmp_path / "wiki.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in articles(3)) + '{"title": 5}\n', encoding="utf-8")
    offset = len(path.read_bytes().split(b"\n", 2)[0]) + 1 + len(path.read_bytes().split(b"\n", 2)[1]) + 1

    items = [item for item, _ in wikiextractor.read_from(path, offset)]

    assert str(items[-1]) == "line 4: 'title' must be a string, not int"
