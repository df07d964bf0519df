"""Knowledge sources imported and indexed once per test run, and a fresh copy of one for each test.

Importing a JSON Lines file and building its index (`import_knowledge jsonl`, `build_index`, as a
researcher does) costs about a second, most of it the index build's vectorising processes; many
tests need such a source only as the ground of a campaign. The first test that asks for a given
(slug, articles) imports and indexes them for real inside a savepoint, keeps the rows and the
published build, and rolls the savepoint back. Each test, the first included, then gets its own
copy: the rows inserted afresh (new primary keys, as an import makes them) and the build's arrays
published under that test's INDEX_DIR (store.build_publish) with its `doc_ids` (the article key at
each index position) rewritten to the new keys. What a test reads is what the import and the
build made; what it writes stays its own.

The tests of importing and indexing themselves call the commands (tests/retrieval/).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.core.management import call_command
from django.db import transaction
from django.db.models import Model
from django.test import override_settings

from retrieval.index.store import build_dir_create, build_publish
from retrieval.models import Article, KnowledgeSource, Mention, Sentence

Articles = tuple[tuple[str, str], ...]  # (title, lead paragraph)


@dataclass(frozen=True)
class Snapshot:
    slug: str
    source: dict[str, Any]  # the source's fields, less its key
    articles: list[dict[str, Any]]  # in key order, each with its old key as "id"
    sentences: list[dict[str, Any]]  # "article_id" the old key
    mentions: list[dict[str, Any]]  # "sentence_id" and "entity_id" old keys
    build: Path  # the published build directory (arrays and meta.json)


def _fields(obj: Model) -> dict[str, Any]:
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


class Snapshots:
    """The snapshots of one test run (one per xdist worker), kept under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._taken: dict[tuple[str, Articles], Snapshot] = {}

    def source(self, *, slug: str, articles: Articles, index_dir: Path, work_dir: Path) -> KnowledgeSource:
        """A fresh copy of the source `slug` holding `articles`, indexed under `index_dir`; the first
        call for these articles imports and indexes them (the JSON Lines file goes to `work_dir`)."""
        snapshot = self._taken.get((slug, articles))
        if snapshot is None:
            snapshot = self._taken[(slug, articles)] = self._take(slug, articles, work_dir)
        return _restore(snapshot, index_dir)

    def _take(self, slug: str, articles: Articles, work_dir: Path) -> Snapshot:
        taken_dir = self.root / f"{slug}-{len(self._taken)}"
        path = work_dir / f"{slug}.jsonl"
        path.write_text("\n".join(json.dumps({"title": t, "text": x}) for t, x in articles), encoding="utf-8")
        with override_settings(INDEX_DIR=taken_dir), transaction.atomic():
            call_command("import_knowledge", "jsonl", str(path), source=slug, verbosity=0)
            call_command("build_index", source=slug, verbosity=0)
            source = KnowledgeSource.objects.get(slug=slug)
            snapshot = Snapshot(
                slug=slug,
                source={k: v for k, v in _fields(source).items() if k != "id"},
                articles=[_fields(a) for a in Article.objects.filter(source=source).order_by("pk")],
                sentences=[_fields(s) for s in Sentence.objects.filter(article__source=source).order_by("pk")],
                mentions=[_fields(m) for m in Mention.objects.filter(sentence__article__source=source).order_by("pk")],
                build=(taken_dir / slug).resolve(),
            )
            transaction.set_rollback(True)
        return snapshot


def _restore(snapshot: Snapshot, index_dir: Path) -> KnowledgeSource:
    source = KnowledgeSource.objects.create(**snapshot.source)
    articles = Article.objects.bulk_create(
        [Article(**{**fields, "id": None, "source_id": source.pk}) for fields in snapshot.articles]
    )
    article_keys = {fields["id"]: article.pk for fields, article in zip(snapshot.articles, articles)}
    sentences = Sentence.objects.bulk_create(
        [Sentence(**{**fields, "id": None, "article_id": article_keys[fields["article_id"]]}) for fields in snapshot.sentences]
    )
    sentence_keys = {fields["id"]: sentence.pk for fields, sentence in zip(snapshot.sentences, sentences)}
    Mention.objects.bulk_create([
        Mention(**{
            **fields,
            "id": None,
            "sentence_id": sentence_keys[fields["sentence_id"]],
            "entity_id": article_keys.get(fields["entity_id"]),
        })
        for fields in snapshot.mentions
    ])
    # The build's arrays, published under this test's INDEX_DIR as an index build publishes them.
    build = build_dir_create(index_dir=index_dir, slug=snapshot.slug)
    for array in snapshot.build.glob("*.npy"):
        shutil.copyfile(array, build / array.name)
    doc_ids = np.load(build / "doc_ids.npy")
    np.save(build / "doc_ids.npy", np.array([article_keys[int(key)] for key in doc_ids], dtype=doc_ids.dtype))
    meta = json.loads((snapshot.build / "meta.json").read_text())
    build_publish(index_dir=index_dir, slug=snapshot.slug, build=build, meta={k: v for k, v in meta.items() if k != "version"})
    return source
