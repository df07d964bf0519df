"""The learned ranker: train_reranker --model learned, eval_ranker (a model, or --cross-fit), the
live configuration, and refusals of bad models."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command

from retrieval.rankers import Candidate
from retrieval.rankers.config import ranker_config
from retrieval.rankers.learned import LearnedModelError, LearnedRanker, learned_load
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.services import passages_rank
from tests.retrieval.wowpp_files import placement_contexts, write_wowpp

ISLAND = [Candidate("Island99", "Island99 is a volcanic island in the south."),
          Candidate("Island99", "Its population grew after 1999."),
          Candidate("Harbour99", "Ferry boats in the harbour carry an old crew, number 99."),
          Candidate("Harbour99", "The harbour was dredged in 2049.")]
TURNS = ["Tell me about Island99.", "I heard the ferry boats in the harbour are old, crew number 99."]


def command(name: str, *args: object) -> str:
    out = StringIO()
    call_command(name, *[str(a) for a in args], stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture(scope="module")
def lexical_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("learned")
    command("train_reranker", "--model", "learned", "--lexical-only", "--wowpp",
            write_wowpp(tmp / "train.json", placement_contexts(12)), "--out", tmp / "model")
    return tmp / "model"


def test_it_learns_what_word_overlap_gets_wrong(lexical_model: Path) -> None:
    learned = LearnedRanker(learned_load(lexical_model))

    assert TfidfRanker().score(TURNS, ISLAND, topic="Island99").argmax() == 2  # the harbour sentence
    assert learned.score(TURNS, ISLAND, topic="Island99").argmax() == 0


def test_the_model_is_plain_json_with_its_provenance(lexical_model: Path) -> None:
    model = json.loads((lexical_model / "learned.json").read_text())

    assert (model["kind"], model["semantic"], model["contexts"], model["pairs"], model["positives"]) == (
        "learned", False, 12, 48, 12)
    assert len(model["coef"]) == len(model["features"]) == len(model["mean"])
    assert model["trained_on"][0].endswith("train.json")


def test_eval_ranker_scores_a_learned_model(lexical_model: Path, tmp_path: Path) -> None:
    held_out = write_wowpp(tmp_path / "test.json", placement_contexts(20)[12:])

    metrics = json.loads(command("eval_ranker", "--wowpp", held_out, "--ranker", "learned",
                                 "--checkpoint", lexical_model, "--json"))
    tfidf = json.loads(command("eval_ranker", "--wowpp", held_out, "--ranker", "tfidf", "--json"))

    assert metrics["n"] == 8
    assert metrics["MRR@1"] == 1.0
    assert tfidf["MRR@1"] < 0.5


def test_cross_fit_trains_on_one_half_and_scores_the_other(tmp_path: Path) -> None:
    path = write_wowpp(tmp_path / "w.json", placement_contexts(24))

    metrics = json.loads(command("eval_ranker", "--wowpp", path, "--ranker", "learned", "--cross-fit",
                                 "--lexical-only", "--json"))

    assert metrics["n"] == 24
    assert metrics["MRR@1"] == 1.0


def test_the_semantic_features_load_the_shipped_minilm(tmp_path: Path) -> None:
    command("train_reranker", "--model", "learned", "--wowpp", write_wowpp(tmp_path / "t.json", placement_contexts(8)),
            "--out", tmp_path / "m", "--device", "cpu")
    model = learned_load(tmp_path / "m")

    assert model["semantic"] is True and "minilm_last1" in model["features"]
    assert LearnedRanker(model, device="cpu").score(TURNS, ISLAND, topic="Island99").argmax() == 0


def test_the_live_rerank_gives_the_topic_to_the_ranker(lexical_model: Path) -> None:
    passages = [{"title": "Harbour99", "sentences": [c.text for c in ISLAND[2:]]},
                {"title": "Island99", "sentences": [c.text for c in ISLAND[:2]]}]
    ranker = LearnedRanker(learned_load(lexical_model))

    with_topic = passages_rank(context=TURNS, passages=passages, topic="Island99", ranker=ranker)
    without = passages_rank(context=TURNS, passages=passages, ranker=ranker)

    assert with_topic[0]["title"] == "Island99"
    island_with, island_without = (next(p["scores"][0] for p in r if p["title"] == "Island99") for r in (with_topic, without))
    assert island_with > island_without  # its own article counts only with a topic


def test_a_learned_checkpoint_makes_the_live_ranker_learned(settings, lexical_model: Path) -> None:
    settings.RANKER, settings.RERANKER_CHECKPOINT = "", str(lexical_model)
    assert ranker_config().ranker == "learned"

    settings.RANKER = "neural"
    with pytest.raises(ImproperlyConfigured, match="does not fit GROUNDWORK_RERANKER_CHECKPOINT"):
        ranker_config()


@pytest.mark.parametrize(("change", "message"), [
    ({"kind": "cross-encoder"}, "not a learned ranker model"),
    ({"features": ["tfidf_query"]}, "trained on other features"),
    ({"coef": "many"}, "'coef' must hold"),
    ({"scale": None}, "'scale' must hold"),
])
def test_a_bad_model_is_refused_with_what_is_wrong(lexical_model: Path, tmp_path: Path, change: dict, message: str) -> None:
    model = json.loads((lexical_model / "learned.json").read_text())
    (tmp_path / "learned.json").write_text(json.dumps(model | change))

    with pytest.raises(LearnedModelError, match=message):
        learned_load(tmp_path)
    with pytest.raises(CommandError, match=message):
        command("eval_ranker", "--wowpp", write_wowpp(tmp_path / "w.json"), "--ranker", "learned",
                "--checkpoint", tmp_path)


def test_a_non_finite_weight_is_refused(lexical_model: Path, tmp_path: Path) -> None:
    text = (lexical_model / "learned.json").read_text().replace('"coef": [\n  ', '"coef": [\n  NaN, ', 1)
    model = json.loads(text)
    model["coef"] = model["coef"][: len(model["features"])]
    (tmp_path / "learned.json").write_text(json.dumps(model))

    with pytest.raises(LearnedModelError, match="'coef' must hold"):
        learned_load(tmp_path)


@pytest.mark.parametrize(("args", "message"), [
    (["--ranker", "tfidf", "--cross-fit"], "--cross-fit trains its own"),
    (["--ranker", "learned"], "needs --checkpoint"),
    (["--ranker", "learned", "--cross-fit", "--c", "0"], "--c must be positive"),
])
def test_eval_ranker_refuses_options_that_do_not_fit(tmp_path: Path, args: list, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        command("eval_ranker", "--wowpp", write_wowpp(tmp_path / "w.json"), *args)


def test_training_needs_both_kinds_of_sentence(tmp_path: Path) -> None:
    contexts = [(topic, turns, [(a, s, 0.0) for a, s, _ in candidates])
                for topic, turns, candidates in placement_contexts(3)]

    with pytest.raises(CommandError, match="both relevant and not relevant"):
        command("train_reranker", "--model", "learned", "--lexical-only",
                "--wowpp", write_wowpp(tmp_path / "w.json", contexts), "--out", tmp_path / "m")
