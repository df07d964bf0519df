"""A human-evaluation campaign's results from its conversations (and pairwise judgments), as
JSON-ready data: per model, overall and by seen/unseen topic (the human control arm is one more
"model", named after its arm), the final questions' n/mean/sd, Wiki F1, per-turn problem rates,
median latency, time to first token (p50/p95: when the person first saw the reply's text) and, for DuConv conversations, automatic goal completion (0–2); Welch's t and Mann–Whitney U between every two models on each final question; and
the pairwise win rates and leaderboard.

Pure: it reads the attributes of collect.tasktypes.modelchat.selectors.Conversation records and computes.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from statistics import fmean, median, stdev
from typing import Any, Iterable, Protocol, Sequence

from annotate.kinds.pairwise.evaluation.stats import mann_whitney_u, summary, welch_t_test
from annotate.kinds.pairwise.evaluation.wiki_f1 import wiki_f1

SPLITS = ("all", "seen", "unseen")
GOAL_SCORES = (0, 1, 2)
NONE_LABEL = "none"


class TurnLike(Protocol):
    speaker: str
    text: str
    problems: tuple[str, ...] | None
    latency_ms: int | None
    first_token_ms: int | None  # optional: records without it count as None


class ConversationLike(Protocol):
    model: str
    seen: bool | None
    answers: dict[str, int]
    turns: Sequence[TurnLike]
    topic_passage: Sequence[str]
    goal_completion: int | None  # DuConv conversations: 0–2; None otherwise


def _model_turns(conversation: ConversationLike) -> list[TurnLike]:
    return [t for t in conversation.turns if t.speaker == "model"]


def group_stats(conversations: Sequence[ConversationLike], *, questions: Sequence[str], problems: Sequence[str]) -> dict[str, Any]:
    turns = [t for c in conversations for t in _model_turns(c)]
    labelled = [t.problems for t in turns if t.problems is not None]
    f1s = [f for f in (wiki_f1([t.text for t in _model_turns(c)], c.topic_passage) for c in conversations) if f is not None]
    latencies = [t.latency_ms for t in turns if t.latency_ms is not None]
    first_tokens = [t.first_token_ms for t in turns if getattr(t, "first_token_ms", None) is not None]
    rates = {key: (sum(key in labels for labels in labelled) / len(labelled) if labelled else None) for key in (*problems, NONE_LABEL)}
    goals = [c.goal_completion for c in conversations if c.goal_completion is not None]
    return {
        "conversations": len(conversations),
        "model_turns": len(turns),
        "ratings": {q: summary([c.answers[q] for c in conversations if q in c.answers]) for q in questions},
        "wiki_f1": {"n": len(f1s), "mean": fmean(f1s) if f1s else None, "sd": stdev(f1s) if len(f1s) >= 2 else None},
        "problem_rates": {"labelled_turns": len(labelled), **rates},
        "median_latency_ms": median(latencies) if latencies else None,
        "first_token_ms": {"n": len(first_tokens), "p50": percentile(first_tokens, 50), "p95": percentile(first_tokens, 95)},
        "goal_completion": {**summary(goals), "scores": {str(k): goals.count(k) for k in GOAL_SCORES}},
    }


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile, linear between the closest ranks (numpy's default); None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def split_of(conversation: ConversationLike) -> str | None:
    return None if conversation.seen is None else ("seen" if conversation.seen else "unseen")


def rating_tests(by_model: dict[str, list[ConversationLike]], *, questions: Sequence[str]) -> list[dict[str, Any]]:
    tests = []
    for question in questions:
        ratings = {m: [c.answers[question] for c in cs if question in c.answers] for m, cs in by_model.items()}
        for a, b in itertools.combinations(sorted(by_model), 2):
            tests.append({
                "question": question,
                "model_a": a,
                "model_b": b,
                "welch_t": welch_t_test(ratings[a], ratings[b]),
                "mann_whitney_u": mann_whitney_u(ratings[a], ratings[b]),
            })
    return tests


def evaluation_results(
    conversations: Iterable[ConversationLike],
    *,
    questions: Sequence[str],
    problems: Sequence[str],
    pairwise: dict[str, Any] | None = None,
) -> dict[str, Any]:
    by_model: dict[str, list[ConversationLike]] = defaultdict(list)
    for conversation in conversations:
        by_model[conversation.model].append(conversation)
    models: dict[str, dict[str, Any]] = {}
    for model in sorted(by_model):
        splits = {"all": by_model[model]}
        for conversation in by_model[model]:
            split = split_of(conversation)
            if split:
                splits.setdefault(split, []).append(conversation)
        models[model] = {
            split: group_stats(splits.get(split, []), questions=questions, problems=problems) for split in SPLITS
        }
    return {
        "conversations": sum(len(cs) for cs in by_model.values()),
        "questions": list(questions),
        "problems": list(problems),
        "models": models,
        "rating_tests": rating_tests(by_model, questions=questions),
        "pairwise": pairwise,
    }
