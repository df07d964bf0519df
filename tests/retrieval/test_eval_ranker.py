from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.rankers import Candidate
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.rankers.wowpp import WowppError, wowpp_half, wowpp_read
from tests.retrieval.wowpp_files import SEP, write_wowpp

SHARED_TEST_SEEN = Path(__file__).resolve().parents[3] / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"


def run(*args: object) -> str:
    out = StringIO()
    call_command("eval_ranker", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_reads_contexts_and_merges_duplicate_candidates(tmp_path: Path) -> None:
    contexts = wowpp_read(write_wowpp(tmp_path / "w.json"))

    tea = contexts[1]
    assert tea.turns[-1].startswith("I drink tea")
    assert tea.candidates[1] == Candidate("Tea", "Tea is an aromatic beverage prepared with hot water.")
    assert len(tea.candidates) == 3
    assert tea.confidences.tolist() == [0.1, 0.8, 0.7]  # the duplicate's higher confidence


def test_it_splits_the_contexts_into_two_stable_halves(tmp_path: Path) -> None:
    path = write_wowpp(tmp_path / "w.json")
    a, b = wowpp_read(path, half="a"), wowpp_read(path, half="b")

    assert sorted(c.id for c in a + b) == sorted(c.id for c in wowpp_read(path))
    assert all(wowpp_half(c.id) == "a" for c in a)


def test_it_refuses_a_file_of_another_shape(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"x": {"turns": "hello", "annotated_sentences": []}}))

    with pytest.raises(WowppError, match="dialogue x: 'turns' must be a list of strings"):
        wowpp_read(path)


def test_tfidf_ranks_the_sentence_sharing_the_last_turns_words_first() -> None:
    scores = TfidfRanker().score(
        ["Do you like jazz music?", "I love the improvisation in jazz."],
        [Candidate("Blues", "Blues originated in the Deep South."),
         Candidate("Jazz", "Jazz is characterised by swing and improvisation.")],
    )

    assert scores[1] > scores[0]


def test_eval_ranker_prints_the_papers_metrics_as_json(tmp_path: Path) -> None:
    out = run("--wowpp", write_wowpp(tmp_path / "w.json"), "--ranker", "tfidf", "--json")

    metrics = json.loads(out)
    assert list(metrics) == ["MRR@1", "MRR@5", "MAP@5", "MAP@10", "NDCG@5", "NDCG@10", "gNDCG@5", "gNDCG@10", "n"]
    assert metrics["n"] == 3  # the mountain context has no relevant candidate
    assert metrics["MRR@1"] == 1.0


def test_eval_ranker_prints_a_table_without_json(tmp_path: Path) -> None:
    out = run("--wowpp", write_wowpp(tmp_path / "w.json"), "--ranker", "tfidf")

    assert "3 contexts" in out
    assert "NDCG@10 1.0000" in out.replace("  ", " ")


def test_eval_ranker_refuses_a_missing_checkpoint(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a train_reranker checkpoint"):
        run("--wowpp", write_wowpp(tmp_path / "w.json"), "--ranker", "neural", "--checkpoint", tmp_path / "nope")


@pytest.mark.skipif(not SHARED_TEST_SEEN.is_file(), reason="the shared WOW++ test file is not here")
def test_tfidf_on_the_published_test_seen_file() -> None:
    metrics = json.loads(run("--wowpp", SHARED_TEST_SEEN, "--ranker", "tfidf", "--json"))

    assert metrics["n"] == 189
    assert metrics["MRR@1"] >= 0.74  # the paper's TF-IDF on test seen; measured 0.751 (README)


def test_tfidf_matches_words_by_their_stem() -> None:
    scores = TfidfRanker().score(
        ["Do you swim?", "I went swimming in the lake yesterday."],
        [Candidate("Lake", "A lake is a body of water."), Candidate("Swimming", "People swim for exercise.")],
    )

    assert scores[1] > scores[0]


def test_tfidf_puts_the_topics_article_first_when_the_turns_do_not_decide() -> None:
    candidates = [Candidate("Kale", "Kale is a leaf cabbage."), Candidate("Spinach", "Spinach is a leafy green.")]

    assert TfidfRanker().score(["Any tips?"], candidates, topic="Spinach").argmax() == 1
    assert TfidfRanker().score(["Any tips?"], candidates, topic="Kale").argmax() == 0


def test_the_gold_mark_of_the_published_files_never_reaches_a_ranker(tmp_path: Path) -> None:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps({"g": {"turns": ["Hi"], "topic": "Ballet", "annotated_sentences": [
        {"label": f"Ballet_gold{SEP}Ballet is a dance.", "article": "Ballet_gold", "confidence": 0.9},
        {"label": f"Ballet{SEP}It began in Italy.", "article": "Ballet", "confidence": 0.2},
    ]}}))

    [context] = wowpp_read(path)

    assert [c.title for c in context.candidates] == ["Ballet", "Ballet"]


def test_tfidf_paper_reads_the_last_turn_against_the_sentence_alone() -> None:
    from retrieval.rankers.tfidf_paper import TfidfPaperRanker

    candidates = [Candidate("Jazz", "Blues originated in the Deep South."),
                  Candidate("Blues", "Swing and improvisation mark this music.")]
    # The earlier turn, the topic and the titles all say jazz; the last turn alone says improvisation.
    scores = TfidfPaperRanker().score(["Do you like jazz?", "I love improvisation."], candidates, topic="Jazz")
    assert scores[1] > scores[0] == 0.0
    assert TfidfRanker().score(["Do you like jazz?", "I love improvisation."], candidates, topic="Jazz").argmax() == 0
    assert TfidfPaperRanker().score(["Hi"], []).shape == (0,)
    assert not TfidfPaperRanker().score(["a"], [Candidate("", "!")]).any()  # no word at all: all zero


def test_eval_ranker_runs_the_paper_baseline(tmp_path: Path) -> None:
    metrics = json.loads(run("--wowpp", write_wowpp(tmp_path / "w.json"), "--ranker", "tfidf-paper", "--json"))
    assert metrics["n"] == 3 and 0.0 <= metrics["gNDCG@10"] <= 1.0


@pytest.mark.skipif(not SHARED_TEST_SEEN.is_file(), reason="the shared WOW++ test file is not here")
def test_the_paper_baseline_on_the_published_test_seen_file() -> None:
    metrics = json.loads(run("--wowpp", SHARED_TEST_SEEN, "--ranker", "tfidf-paper", "--json"))
    assert metrics["n"] == 189
    assert metrics["MRR@1"] == pytest.approx(0.4127, abs=1e-4)  # docs/retrieval.md
