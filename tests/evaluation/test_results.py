"""Campaign results from conversation records (shaped as collect.tasktypes.modelchat.selectors.Conversation)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from annotate.kinds.pairwise.evaluation.results import evaluation_results


@dataclass(frozen=True)
class Turn:
    speaker: str
    text: str
    problems: tuple[str, ...] | None = None
    latency_ms: int | None = None


@dataclass(frozen=True)
class Conversation:
    model: str
    seen: bool | None
    answers: dict[str, int]
    turns: tuple[Turn, ...]
    topic_passage: tuple[str, ...] = ("The cat sat on the mat.",)
    arm: str = "model"
    goal_completion: int | None = None


def chat(model: str, rating: int | None, *, seen: bool | None = True, problems=(("none",), ("repetitive",)), latencies=(100, 300)) -> Conversation:
    turns = [Turn("human", "hi")]
    for labels, latency in zip(problems, latencies):
        turns += [Turn("model", "the cat sat", labels, latency), Turn("human", "ok")]
    return Conversation(model, seen, {} if rating is None else {"engagingness": rating}, tuple(turns))


def test_it_summarises_each_model_and_split() -> None:
    conversations = [
        chat("kb", 4, seen=True),
        chat("kb", 5, seen=False, problems=(("none",), None), latencies=(500, 700)),
        chat("kb", None, seen=None),
        chat("human", 5, problems=(None, None), latencies=(None, None)),
    ]
    results = evaluation_results(conversations, questions=["engagingness"], problems=["repetitive", "off_topic"])
    kb = results["models"]["kb"]
    assert results["conversations"] == 4 and list(results["models"]) == ["human", "kb"]
    assert kb["all"]["conversations"] == 3 and kb["seen"]["conversations"] == 1 and kb["unseen"]["conversations"] == 1
    assert kb["all"]["ratings"]["engagingness"] == {"n": 2, "mean": 4.5, "sd": pytest.approx(0.7071, abs=1e-4)}
    # 5 labelled model turns: none ×3, repetitive ×2
    assert kb["all"]["problem_rates"] == {"labelled_turns": 5, "repetitive": 0.4, "off_topic": 0.0, "none": 0.6}
    assert kb["all"]["median_latency_ms"] == 300  # 100 300 500 700 100 300
    # "the cat sat" against "The cat sat on the mat.": P = 1, R = 2/4 after dropping "the"
    assert kb["all"]["wiki_f1"]["mean"] == pytest.approx(2 / 3)
    human = results["models"]["human"]["all"]
    assert human["median_latency_ms"] is None and human["problem_rates"]["none"] is None
    assert results["models"]["human"]["unseen"]["conversations"] == 0


def test_it_tests_every_two_models_on_each_question() -> None:
    conversations = [chat("a", r) for r in (1, 2, 2, 3, 1)] + [chat("b", r) for r in (4, 5, 5, 4, 3)] + [chat("c", 3)]
    tests = evaluation_results(conversations, questions=["engagingness"], problems=[])["rating_tests"]
    assert [(t["model_a"], t["model_b"]) for t in tests] == [("a", "b"), ("a", "c"), ("b", "c")]
    ab = tests[0]
    assert ab["welch_t"]["p"] < 0.01 and ab["welch_t"]["cohens_d"] < -2
    assert ab["mann_whitney_u"]["rank_biserial"] == pytest.approx(2 * 0.5 / 25 - 1)  # only the 3–3 tie is not a loss
    assert tests[1]["welch_t"]["p"] is None  # one conversation of c: no variance estimate


def test_it_averages_goal_completion_where_conversations_have_one() -> None:
    conversations = [
        Conversation("agent", True, {"engagingness": 4}, (Turn("model", "hi"),), (), goal_completion=2),
        Conversation("agent", False, {"engagingness": 3}, (Turn("model", "hi"),), (), goal_completion=1),
        Conversation("agent", True, {"engagingness": 5}, (Turn("model", "hi"),), (), goal_completion=2),
        chat("wow-bot", 4),
    ]
    models = evaluation_results(conversations, questions=["engagingness"], problems=[])["models"]
    goal = models["agent"]["all"]["goal_completion"]
    assert goal["n"] == 3 and goal["mean"] == pytest.approx(5 / 3) and goal["scores"] == {"0": 0, "1": 1, "2": 2}
    assert models["agent"]["unseen"]["goal_completion"]["mean"] == 1
    assert models["wow-bot"]["all"]["goal_completion"] == {"n": 0, "mean": None, "sd": None, "scores": {"0": 0, "1": 0, "2": 0}}
    assert models["agent"]["all"]["wiki_f1"]["mean"] is None  # no topic article in DuConv
