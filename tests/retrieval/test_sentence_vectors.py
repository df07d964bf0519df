"""Sentence vectors stored beside a source's index (retrieval/index/vectors.py): built once,
resumable, reused, and looked up by the MiniLM-feature ranker, which then ranks the panels whose
sentences have them, on a CPU too."""

from __future__ import annotations

import fcntl
import io

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError

from retrieval.index import vectors as vectors_module
from retrieval.index.vectors import VectorsBusy, sentence_keys, stored_share, vectors_build, vectors_load
from retrieval.models import Sentence
from retrieval.rankers import Candidate, encoded_text
from retrieval.rankers.embedder import Embedder
from retrieval.rankers.load import live_ranker, ranker_picked
from retrieval.rerank import panel_rank
from tests.settings_read import settings_read

pytestmark = pytest.mark.django_db


class CountingEmbedder(Embedder):
    """The real encoder, counting the texts it is asked to encode."""

    def __init__(self) -> None:
        super().__init__(device="cpu")
        self.encoded: list[str] = []

    def encode(self, texts):
        self.encoded.extend(texts)
        return super().encode(texts)


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture(autouse=True)
def cpu_default_ranker(settings) -> None:
    settings.RANKER, settings.RERANKER_CHECKPOINT, settings.RANKER_FEATURES = "", "", "auto"
    settings.RERANK_DEVICE = "cpu"


def texts_of(source) -> list[str]:
    rows = Sentence.objects.filter(article__source=source).order_by("pk").values_list("article__title", "text")
    return [encoded_text(Candidate(title, text)) for title, text in rows]


def test_every_sentence_is_stored_as_the_encoder_gives_it(knowledge, index_dir, embedder) -> None:
    meta = vectors_build(source_id=knowledge.pk, embedder=embedder)
    texts = texts_of(knowledge)
    stored = vectors_load(index_dir=index_dir, slug=knowledge.slug)
    assert meta["sentences"] == len(set(texts)) == len(stored.keys) and meta["encoded"] == len(texts)
    assert (index_dir / f"{knowledge.slug}.vectors").is_symlink() and stored.vectors.dtype == np.float16
    found, positions = stored.lookup(sentence_keys(texts))
    assert found.all()
    live = Embedder(device="cpu").encode(texts)
    cosines = np.sum(live * stored.vectors[positions].astype(np.float32), axis=1)
    assert cosines.min() > 0.999  # float16 storage changes a cosine by about 1e-3 at most


def test_a_stopped_build_resumes_after_its_last_chunk_and_a_rebuild_encodes_nothing(
    knowledge, index_dir, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors_module, "CHUNK", 4)
    total = len(texts_of(knowledge))

    def stop_after_two_chunks(done: int, total: int) -> None:
        if done >= 8:
            raise KeyboardInterrupt  # as a killed worker: whatever was written whole stays

    with pytest.raises(KeyboardInterrupt):
        vectors_build(source_id=knowledge.pk, embedder=embedder, progress=stop_after_two_chunks)
    assert vectors_load(index_dir=index_dir, slug=knowledge.slug) is None  # nothing half-published
    assert len(embedder.encoded) == 8
    seen: list[tuple[int, int]] = []
    meta = vectors_build(source_id=knowledge.pk, embedder=embedder, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (8, total) and seen[-1] == (total, total)
    assert meta["encoded"] == total - 8 and len(embedder.encoded) == total
    assert vectors_load(index_dir=index_dir, slug=knowledge.slug).lookup(sentence_keys(texts_of(knowledge)))[0].all()

    again = vectors_build(source_id=knowledge.pk, embedder=embedder)
    assert (again["encoded"], again["reused"]) == (0, total) and len(embedder.encoded) == total


def test_a_second_build_of_the_same_source_is_refused_while_one_runs(knowledge, index_dir, embedder) -> None:
    work = index_dir / vectors_module.WORK / knowledge.slug
    work.mkdir(parents=True)
    with (work / "lock").open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a build in another process holds it
        with pytest.raises(VectorsBusy, match="being built by another process"):
            vectors_build(source_id=knowledge.pk, embedder=embedder)
        with pytest.raises(CommandError, match="being built by another process"):
            call_command("build_vectors", source=knowledge.slug, verbosity=0, stdout=io.StringIO())
    assert vectors_load(index_dir=index_dir, slug=knowledge.slug) is None


def test_the_command_reports_what_it_stored(knowledge, index_dir) -> None:
    out = io.StringIO()
    call_command("build_vectors", source=knowledge.slug, device="cpu", verbosity=0, stdout=out)
    assert f"sentences of {knowledge.slug!r}" in out.getvalue() and "encoded" in out.getvalue()
    with pytest.raises(CommandError, match="no knowledge source 'nope'"):
        call_command("build_vectors", source="nope", stdout=io.StringIO())


def test_an_index_build_is_followed_by_the_vectors_as_configured(knowledge, index_dir, monkeypatch, settings) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.SENTENCE_VECTORS = "auto"  # tasks in-process: minutes inline, so not built
    out = io.StringIO()
    call_command("build_index", source=knowledge.slug, stdout=out)
    assert "sentence vectors not built" in out.getvalue() and vectors_load(index_dir=index_dir, slug=knowledge.slug) is None
    settings.SENTENCE_VECTORS = "on"
    out = io.StringIO()
    call_command("build_index", source=knowledge.slug, stdout=out)
    assert "sentence vectors built" in out.getvalue() and vectors_load(index_dir=index_dir, slug=knowledge.slug) is not None
    with pytest.raises(ImproperlyConfigured, match="GROUNDWORK_SENTENCE_VECTORS='sometimes'"):
        settings_read(monkeypatch, GROUNDWORK_SENTENCE_VECTORS="sometimes")


def passages_of(source, titles: list[str]) -> list[dict]:
    passages = []
    for title in titles:
        rows = Sentence.objects.filter(article__source=source, article__title=title).order_by("position")
        passages.append({"title": title, "sentences": list(rows.values_list("text", flat=True))})
    return passages


def test_the_minilm_model_ranks_the_panels_whose_sentences_are_stored(knowledge, index_dir, embedder) -> None:
    passages = passages_of(knowledge, ["Blues", "Jazz", "Guitar", "Tea"])
    context = ["I love music from New Orleans.", "What kind? Jazz or blues?", "Jazz! Where did it start?"]
    before = panel_rank(context=context, passages=passages, topic="Jazz", after_seq=3)
    assert before["ranked_by"] == "shipped-lexical" and ranker_picked(live_ranker(), []).embedder is None

    vectors_build(source_id=knowledge.pk, embedder=embedder)
    candidates = [Candidate(p["title"], s) for p in passages for s in p["sentences"]]
    assert stored_share([encoded_text(c) for c in candidates]) == 1.0
    after = panel_rank(context=context, passages=passages, topic="Jazz", after_seq=3)
    assert after["ranked_by"] == "shipped-minilm" and after["passages"][0]["title"] == "Jazz"

    minilm = ranker_picked(live_ranker(), candidates)
    encoder = minilm.embedder.model
    calls: list[int] = []
    original = encoder.encode
    encoder.encode = lambda texts, **kw: calls.append(len(texts)) or original(texts, **kw)
    try:
        minilm.score([*context, "And the blues?"], candidates, topic="Jazz")
    finally:
        encoder.encode = original
    assert calls == [1]  # only the new turn: the sentences are stored, the earlier turns kept

    unknown = [Candidate("Elsewhere", f"A sentence no source holds, number {i}.") for i in range(len(candidates))]
    assert ranker_picked(live_ranker(), unknown).embedder is None  # no vectors: the lexical model


def test_the_ranker_page_shows_each_sources_vectors_and_a_stopped_build(knowledge, index_dir, embedder, monkeypatch) -> None:
    from tests.retrieval.test_ranker_page import logged_in

    total = len(texts_of(knowledge))
    html = logged_in(staff=True).get("/research/ranker/").content.decode()
    assert f"<td>{knowledge.slug}</td><td>{total}</td>" in html and "none: panels of this source are ranked with lexical" in html
    monkeypatch.setattr(vectors_module, "CHUNK", 4)

    def stop(done: int, total: int) -> None:
        if done >= 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        vectors_build(source_id=knowledge.pk, embedder=embedder, progress=stop)
    assert f"4 of {total} encoded" in logged_in(staff=True).get("/research/ranker/").content.decode()
    vectors_build(source_id=knowledge.pk, embedder=embedder)
    html = logged_in(staff=True).get("/research/ranker/").content.decode()
    assert f"<td>{knowledge.slug}</td><td>{total}</td><td>{total}</td>" in html and "MiB" in html
    assert "ranks the panels whose sentences have them" in html
