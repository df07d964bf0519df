"""The Curiosity fact database (SQLite, `wiki_sql.sqlite.db` in the original release):

    fact(id, page, section_idx, section_title, paragraph_idx, text, pageviews)
    mention(id, is_location, pageviews, page, title, fact_id -> fact.id)
    wiki(id, title, text, is_simple)

In the store a fact is a Sentence of the article `page`, its section the aspect, `fact.id` kept as
Sentence.fact_id (the `fid` of the dialogs); a mention is a Mention; a wiki summary is the article's
lead. The lead section (Sentence.section == "") is called "Body" in the file.

`factdb_import` keeps a copy of the file; `factdb_write` copies it back while the source still holds
exactly what was imported (so `db_checksum` is the original's), and otherwise writes a new file from
the source.

Dialogs can come before their fact db: `factdb_expect` records the db a source is waiting for (its
md5, no file: `FactDatabase.path == ""`), and a later `factdb_import` of the file with that md5 fills
that very source, so the dialogs' `fid`s then resolve to fact texts.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Max

from retrieval.models import LEAD_SECTION, Article, FactDatabase, KnowledgeSource, Mention, Sentence

BODY = "Body"
TABLES = {
    "fact": ("id", "page", "section_idx", "section_title", "paragraph_idx", "text", "pageviews"),
    "mention": ("id", "is_location", "pageviews", "page", "title", "fact_id"),
    "wiki": ("id", "title", "text", "is_simple"),
}
SCHEMA = """
CREATE TABLE fact (
	id INTEGER NOT NULL,
	page TEXT NOT NULL,
	section_idx INTEGER NOT NULL,
	section_title TEXT NOT NULL,
	paragraph_idx INTEGER NOT NULL,
	text TEXT NOT NULL,
	pageviews INTEGER NOT NULL,
	PRIMARY KEY (id)
);
CREATE INDEX ix_fact_page ON fact (page);
CREATE INDEX ix_fact_section_title ON fact (section_title);
CREATE TABLE mention (
	id INTEGER NOT NULL,
	is_location BOOLEAN NOT NULL,
	pageviews INTEGER NOT NULL,
	page TEXT NOT NULL,
	title TEXT NOT NULL,
	fact_id INTEGER NOT NULL,
	PRIMARY KEY (id),
	FOREIGN KEY(fact_id) REFERENCES fact (id)
);
CREATE TABLE wiki (
	id INTEGER NOT NULL,
	title TEXT NOT NULL,
	text TEXT NOT NULL,
	is_simple BOOLEAN NOT NULL,
	PRIMARY KEY (id)
);
CREATE INDEX ix_wiki_title ON wiki (title);
"""
BATCH = 5000


class FactDbError(ValueError):
    """The file is not a Curiosity fact database, or cannot go into that source; says why."""


@dataclass
class FactDbImport:
    source: KnowledgeSource
    md5: str
    articles: int = 0
    facts: int = 0
    mentions: int = 0
    already_present: bool = False


def md5_file(path: Path) -> str:
    digest = hashlib.md5()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def keep_dir() -> Path:
    return Path(getattr(settings, "CURIOSITY_FACTDB_DIR", settings.VAR_DIR / "curiosity"))


def source_fingerprint(source_id: int) -> dict[str, int]:
    sentences = Sentence.objects.filter(article__source_id=source_id)
    return {
        "articles": Article.objects.filter(source_id=source_id).count(),
        "sentences": sentences.count(),
        "last_sentence": sentences.aggregate(m=Max("pk"))["m"] or 0,
        "mentions": Mention.objects.filter(sentence__article__source_id=source_id).count(),
    }


def _open(path: Path) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        columns = {
            table: [row[1] for row in connection.execute(f"PRAGMA table_info({table})")] for table in TABLES
        }
    except sqlite3.DatabaseError as error:
        raise FactDbError(f"{path}: not an SQLite database ({error})") from error
    for table, expected in TABLES.items():
        missing = [column for column in expected if column not in columns[table]]
        if not columns[table]:
            raise FactDbError(f"{path}: no table {table!r}; a Curiosity fact db has fact, mention and wiki")
        if missing:
            raise FactDbError(f"{path}: table {table!r} lacks column(s) {', '.join(missing)}")
    return connection


def factdb_import(*, path: Path, slug: str, name: str = "") -> FactDbImport:
    """Import the fact database at `path` into the source `slug` (created if missing; it must be
    empty, or hold this very file already, in which case nothing is done)."""
    md5 = md5_file(path)
    connection = _open(path)
    try:
        with transaction.atomic():
            source, _ = KnowledgeSource.objects.get_or_create(slug=slug, defaults={"name": name or slug})
            existing = FactDatabase.objects.filter(source=source).first()
            if existing is not None and existing.md5 != md5:
                raise FactDbError(f"source {slug!r} already holds another fact db ({existing.md5}); use a new --source")
            if existing is not None and existing.path:
                return FactDbImport(source, md5, already_present=True)
            if source.articles.exists():
                raise FactDbError(f"source {slug!r} already has articles; import a fact db into a new source")
            result = FactDbImport(source, md5)
            _import_rows(connection, source, result)
            kept = keep_dir() / f"{md5}.sqlite.db"
            kept.parent.mkdir(parents=True, exist_ok=True)
            if not kept.exists():
                temp = kept.with_suffix(f".{os.getpid()}.tmp")
                shutil.copyfile(path, temp)
                os.replace(temp, kept)
            FactDatabase.objects.update_or_create(
                source=source, defaults={"md5": md5, "path": str(kept), "fingerprint": source_fingerprint(source.pk)}
            )
            return result
    finally:
        connection.close()


def factdb_expect(*, md5: str, slug: str, name: str = "") -> KnowledgeSource:
    """The source that holds, or waits for, the fact db with this md5: an existing one, else `slug`
    (created empty, recording the md5 it waits for)."""
    known = FactDatabase.objects.select_related("source").filter(md5=md5).order_by("-path", "pk").first()
    if known is not None:
        return known.source
    source, _ = KnowledgeSource.objects.get_or_create(slug=slug, defaults={"name": name or slug})
    existing = FactDatabase.objects.filter(source=source).first()
    if existing is not None or source.articles.exists():
        raise FactDbError(f"source {slug!r} already holds other knowledge; cannot wait there for fact db {md5}")
    FactDatabase.objects.create(source=source, md5=md5, path="", fingerprint={})
    return source


def factdb_missing(*, source_id: int) -> str | None:
    """The md5 of the fact db this source waits for (dialogs imported without it), else None."""
    return FactDatabase.objects.filter(source_id=source_id, path="").values_list("md5", flat=True).first()


def _import_rows(connection: sqlite3.Connection, source: KnowledgeSource, result: FactDbImport) -> None:
    summaries: dict[str, str] = {}
    # The full (not Simple English) summary when a title has both.
    for title, text, _is_simple in connection.execute("SELECT title, text, is_simple FROM wiki ORDER BY is_simple DESC, id"):
        summaries[title] = text
    pages: dict[str, int] = {}
    for page, views in connection.execute("SELECT page, MAX(pageviews) FROM fact GROUP BY page ORDER BY MIN(id)"):
        pages[page] = views
    titles = list(pages) + [title for title in summaries if title not in pages]
    articles = [
        Article(source=source, title=t, lead=summaries.get(t, ""), pageviews=pages.get(t), entities_linked=True)
        for t in titles
    ]
    Article.objects.bulk_create(articles, batch_size=BATCH)
    article_ids = dict(Article.objects.filter(source=source).values_list("title", "pk"))
    result.articles = len(article_ids)

    positions: dict[str, int] = {}
    batch: list[Sentence] = []
    rows = connection.execute(
        "SELECT id, page, section_idx, section_title, paragraph_idx, text FROM fact ORDER BY page, section_idx, paragraph_idx, id"
    )
    for fid, page, section_idx, section_title, paragraph_idx, text in rows:
        position = positions.get(page, 0)
        positions[page] = position + 1
        section = LEAD_SECTION if section_title == BODY else section_title
        batch.append(
            Sentence(
                article_id=article_ids[page], section=section, position=position, text=text, fact_id=fid,
                section_index=section_idx, paragraph_index=paragraph_idx,
            )
        )
        if len(batch) >= BATCH:
            Sentence.objects.bulk_create(batch)
            result.facts += len(batch)
            batch = []
    Sentence.objects.bulk_create(batch)
    result.facts += len(batch)

    sentence_ids = dict(Sentence.objects.filter(article__source=source).values_list("fact_id", "pk"))
    seen: set[tuple[int, str]] = set()
    mentions: list[Mention] = []
    rows = connection.execute("SELECT id, is_location, pageviews, title, fact_id FROM mention ORDER BY id")
    for mid, is_location, views, title, fact_id in rows:
        sentence_id = sentence_ids.get(fact_id)
        if sentence_id is None or (sentence_id, title) in seen:
            continue  # a mention of a missing fact, or the same entity twice in one fact
        seen.add((sentence_id, title))
        mentions.append(
            Mention(sentence_id=sentence_id, title=title, entity_id=article_ids.get(title), is_location=bool(is_location),
                    pageviews=views, external_id=mid)
        )
        if len(mentions) >= BATCH:
            Mention.objects.bulk_create(mentions)
            result.mentions += len(mentions)
            mentions = []
    Mention.objects.bulk_create(mentions)
    result.mentions += len(mentions)


def factdb_write(*, source_id: int, path: Path) -> str:
    """Write the source's fact database to `path`; returns its md5 (the dialogs' `db_checksum`)."""
    imported = FactDatabase.objects.filter(source_id=source_id).first()
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.unlink(missing_ok=True)
    try:
        if imported is not None and Path(imported.path).is_file() and imported.fingerprint == source_fingerprint(source_id):
            shutil.copyfile(imported.path, temp)
        else:
            _write_new(source_id, temp)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    return md5_file(path)


def _write_new(source_id: int, path: Path) -> None:
    connection = sqlite3.connect(path)
    try:
        connection.executescript(SCHEMA)
        try:
            _insert(connection, "fact", _fact_rows(source_id))
        except sqlite3.IntegrityError as error:
            raise FactDbError(f"two facts of the source share one fact id ({error})") from error
        _insert(connection, "mention", _mention_rows(source_id))
        _insert(connection, "wiki", _wiki_rows(source_id))
        connection.commit()
    finally:
        connection.close()


def _insert(connection: sqlite3.Connection, table: str, rows: Iterator[tuple]) -> None:
    marks = ", ".join("?" for _ in TABLES[table])
    sql = f"INSERT INTO {table} ({', '.join(TABLES[table])}) VALUES ({marks})"
    batch: list[tuple] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            connection.executemany(sql, batch)
            batch = []
    connection.executemany(sql, batch)


def _fact_rows(source_id: int) -> Iterator[tuple]:
    sections: dict[int, dict[str, int]] = {}  # article → section → its index, in order of appearance
    rows = (
        Sentence.objects.filter(article__source_id=source_id)
        .order_by("article_id", "position")
        .values_list("pk", "fact_id", "article_id", "article__title", "section", "section_index", "paragraph_index",
                     "text", "article__pageviews", "article__inlinks")
    )
    for pk, fact_id, article_id, title, section, section_index, paragraph_index, text, views, inlinks in rows.iterator(2000):
        if section_index is None:
            seen = sections.setdefault(article_id, {})
            section_index = seen.setdefault(section, len(seen))
        yield (
            fact_id if fact_id is not None else pk, title, section_index, section or BODY,
            paragraph_index or 0, text, views if views is not None else inlinks,
        )


def _mention_rows(source_id: int) -> Iterator[tuple]:
    rows = (
        Mention.objects.filter(sentence__article__source_id=source_id)
        .order_by("pk")
        .values_list("pk", "external_id", "is_location", "pageviews", "sentence__article__title", "title",
                     "sentence__fact_id", "sentence_id", "entity__pageviews", "entity__inlinks")
    )
    for pk, external, is_location, views, page, title, fact_id, sentence_id, entity_views, entity_inlinks in rows.iterator(2000):
        if views is None:
            views = entity_views if entity_views is not None else (entity_inlinks or 0)
        yield (external if external is not None else pk, is_location, views, page, title,
               fact_id if fact_id is not None else sentence_id)


def _wiki_rows(source_id: int) -> Iterator[tuple]:
    rows = Article.objects.filter(source_id=source_id).exclude(lead="").order_by("pk").values_list("pk", "title", "lead")
    for pk, title, lead in rows.iterator(2000):
        yield (pk, title, lead, False)
