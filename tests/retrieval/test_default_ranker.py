"""The live ranker without a configured checkpoint is the learned model shipped in
retrieval/rankers/default_models (lexical features; MiniLM features where a GPU or a setting allows),
with its provenance and the CC BY-SA attribution of the data it was fitted on."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from retrieval.rankers import Candidate, encodes
from retrieval.rankers.config import DEFAULT_MODELS, default_model_dir, ranker_config
from retrieval.rankers.learned import LearnedRanker, learned_load
from retrieval.rankers.load import live_ranker, ranker_picked
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.rankers.tfidf_paper import TfidfPaperRanker
from retrieval.services import passages_rank, rerank_passages
from tests.settings_read import settings_read

CONTEXT = ["I have been reading about Mars.", "Could people ever live there? It seems so cold."]
PASSAGES = [
    {"title": "Stockholm", "sentences": ["Stockholm is the capital of Sweden.", "People live on fourteen islands."]},
    {"title": "Mars", "sentences": ["Mars is the fourth planet from the Sun.", "Its surface is cold, averaging -60 C."]},
    {"title": "Colonization of Mars", "sentences": ["Colonization of Mars is the proposed settlement of people on Mars."]},
]


@pytest.fixture(autouse=True)
def no_ranker_settings(settings) -> None:
    settings.RANKER, settings.RERANKER_CHECKPOINT, settings.RANKER_FEATURES = "", "", "auto"
    settings.RERANK_DEVICE = "cpu"  # the same choice on a machine with a GPU
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.mark.parametrize("features", ["lexical", "minilm"])
def test_the_shipped_models_load_and_say_where_they_come_from(features: str) -> None:
    model = learned_load(DEFAULT_MODELS / features)
    assert model["semantic"] is (features == "minilm")
    assert model["trained_on"] == ["../shared/data/wowpp/test_random_augmented_wow.json"]
    assert "WOW++" in model["attribution"] and "CC BY-SA 4.0" in model["attribution"]
    assert (model["contexts"], model["threshold"]) == (198, 0.6)
    assert "CC BY-SA 4.0" in (DEFAULT_MODELS / "ATTRIBUTION.md").read_text()


def test_without_a_checkpoint_the_live_ranker_is_the_shipped_lexical_model(index_dir) -> None:
    config = ranker_config()
    assert (config.ranker, config.checkpoint, config.bundled) == ("learned", DEFAULT_MODELS / "lexical", True)
    assert config.minilm_where_stored  # on a CPU the MiniLM model takes the panels with stored vectors
    # Nothing here has stored sentence vectors: the lexical model ranks, and torch is not needed.
    ranker = ranker_picked(live_ranker(), [Candidate(p["title"], s) for p in PASSAGES for s in p["sentences"]])
    assert isinstance(ranker, LearnedRanker) and ranker.model["semantic"] is False and ranker.embedder is None


def test_the_reranked_panel_uses_the_shipped_model() -> None:
    ranked = rerank_passages(context=CONTEXT, passages=PASSAGES, topic="Mars", timeout_s=30)
    expected = passages_rank(context=CONTEXT, passages=PASSAGES, topic="Mars",
                             ranker=LearnedRanker(learned_load(DEFAULT_MODELS / "lexical")))
    tfidf = passages_rank(context=CONTEXT, passages=PASSAGES, topic="Mars", ranker=TfidfRanker())
    assert ranked == expected
    assert [p["scores"] for p in ranked] != [p["scores"] for p in tfidf]
    assert ranked[0]["title"] != "Stockholm"


def test_minilm_features_when_a_gpu_or_the_setting_allows(monkeypatch: pytest.MonkeyPatch, settings) -> None:
    settings.RANKER_FEATURES = "minilm"
    assert ranker_config().checkpoint == DEFAULT_MODELS / "minilm"
    monkeypatch.setattr("retrieval.rankers.config.cuda_available", lambda: True)
    assert default_model_dir(features="auto", device="auto") == DEFAULT_MODELS / "minilm"
    assert default_model_dir(features="auto", device="cpu") == DEFAULT_MODELS / "lexical"
    monkeypatch.setattr("retrieval.rankers.config.cuda_available", lambda: False)
    assert default_model_dir(features="auto", device="auto") == DEFAULT_MODELS / "lexical"


def test_only_the_rankers_that_run_an_encoder_say_so() -> None:
    """What decides whether a worker's retrieval task ranks a wizard panel itself (a few ms) or
    queues it on `rerank` (collect/tasks.py): the MiniLM-feature model encodes, the lexical ones
    do not, and a ranker that does not say is taken to encode."""
    lexical = LearnedRanker(learned_load(DEFAULT_MODELS / "lexical"))
    assert not encodes(lexical) and not encodes(TfidfRanker()) and not encodes(TfidfPaperRanker())
    assert encodes(LearnedRanker(learned_load(DEFAULT_MODELS / "minilm"), device="cpu"))

    class Unsaid:
        name = "unsaid"

    assert encodes(Unsaid())


def test_tfidf_stays_available_and_a_features_setting_that_does_not_apply_is_named(settings) -> None:
    settings.RANKER = "tfidf"
    config = ranker_config()
    assert (config.ranker, config.checkpoint, config.bundled) == ("tfidf", None, False)
    settings.RANKER_FEATURES = "minilm"
    with pytest.raises(ImproperlyConfigured, match="GROUNDWORK_RANKER_FEATURES"):
        ranker_config()


def test_a_features_setting_that_is_not_one_is_refused_at_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ImproperlyConfigured, match="GROUNDWORK_RANKER_FEATURES='glove' must be one of auto, lexical, minilm"):
        settings_read(monkeypatch, GROUNDWORK_RANKER_FEATURES="glove")


def test_a_copy_without_the_minilm_model_falls_back_to_lexical(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    (tmp_path / "lexical").mkdir()
    monkeypatch.setattr("retrieval.rankers.config.DEFAULT_MODELS", tmp_path)
    monkeypatch.setattr("retrieval.rankers.config.cuda_available", lambda: True)
    assert default_model_dir(features="auto", device="auto") == tmp_path / "lexical"
    with pytest.raises(ImproperlyConfigured, match="no MiniLM model is shipped"):
        default_model_dir(features="minilm", device="auto")


def test_the_papers_tfidf_baseline_can_be_the_live_ranker(settings) -> None:
    settings.RANKER = "tfidf-paper"
    config = ranker_config()
    assert (config.ranker, config.checkpoint, config.bundled) == ("tfidf-paper", None, False)
    assert live_ranker().name == "tfidf-paper"
