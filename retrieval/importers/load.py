"""Store a stream of records into one knowledge source, in a single transaction and in batches."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from django.db import transaction

from retrieval.importers.records import BadRecord, Record
from retrieval.models import LEAD_SECTION, Article, KnowledgeSource, Sentence
from retrieval.text import split_sentences

OnError = Literal["fail", "skip"]


@dataclass
class ImportResult:
    articles: int = 0
    sentences: int = 0
    already_present: int = 0
    bad: int = 0

    @property
    def skipped(self) -> int:
        return self.already_present + self.bad


class BadRecordError(ValueError):
    def __init__(self, bad: BadRecord) -> None:
        super().__init__(str(bad))
        self.bad = bad


def articles_import(
    *,
    slug: str,
    name: str,
    language: str,
    records: Iterable[Record | BadRecord],
    on_error: OnError = "fail",
    on_bad: Callable[[BadRecord], None] = lambda bad: None,
    batch_size: int = 500,
) -> ImportResult:
    """Import `records` into the source `slug` (created if missing). Titles already in the source
    are skipped, so a re-import is harmless. With on_error="fail" the first BadRecord raises
    BadRecordError and nothing at all is written; with "skip" it is passed to `on_bad` and skipped."""
    result = ImportResult()
    with transaction.atomic():
        source, _ = KnowledgeSource.objects.get_or_create(slug=slug, defaults={"name": name, "language": language})
        batch: dict[str, Record] = {}
        for item in records:
            if isinstance(item, BadRecord):
                if on_error == "fail":
                    raise BadRecordError(item)
                result.bad += 1
                on_bad(item)
            elif item.title in batch:
                result.already_present += 1
            else:
                batch[item.title] = item
                if len(batch) >= batch_size:
                    _store(source, batch, result)
                    batch = {}
        _store(source, batch, result)
    return result


def _store(source: KnowledgeSource, batch: dict[str, Record], result: ImportResult) -> None:
    # Earlier batches of this run are visible here too, so a title repeated across batches is caught.
    present = set(Article.objects.filter(source=source, title__in=list(batch)).values_list("title", flat=True))
    new = [record for title, record in batch.items() if title not in present]
    result.already_present += len(present)
    articles = Article.objects.bulk_create(
        Article(source=source, title=r.title, lead=r.lead, category=r.category) for r in new
    )
    sentences = [
        Sentence(article=article, section=section, position=position, text=text)
        for article, record in zip(articles, new, strict=True)
        for position, (section, text) in enumerate(_sentences(record))
    ]
    Sentence.objects.bulk_create(sentences, batch_size=2000)
    result.articles += len(articles)
    result.sentences += len(sentences)


def _sentences(record: Record) -> Iterator[tuple[str, str]]:
    """(section, sentence) in article order: the lead, then each section's sentences."""
    for text in record.sentences or split_sentences(record.lead) or [record.lead]:
        yield LEAD_SECTION, text
    for heading, body in record.sections:
        for text in split_sentences(body):
            yield heading, text
