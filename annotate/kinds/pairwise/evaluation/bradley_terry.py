"""Bradley–Terry leaderboard from pairwise outcomes, on an Elo-like scale.

P(i beats j) = p_i / (p_i + p_j); a score is 400·log10(p_i), shifted so the models' mean is 1000 (a
100-point gap = 64% expected wins; the mean is over the bounded models of a group, below). A tie
counts as half a win each way. The fit is Hunter's MM algorithm (p_i ← W_i / Σ_j N_ij / (p_i + p_j))
on the aggregated win matrix, vectorised over bootstrap rounds: a round resamples the judgments with
replacement, which is one multinomial draw over the (pair, outcome) cells, so a round costs
O(models²) whatever the number of judgments.

Models that were never compared, directly or through others, cannot be ordered: each connected
group of the comparison graph is fitted, scaled (mean 1000) and ranked on its own, and the rows say
their `group` (annotate.kinds.pairwise.evaluation.groups). `prior` adds that many virtual ties between every two
models of a group. It keeps the estimate finite when a model never won or never lost; the default
is small enough to leave real data unchanged to a fraction of a point. Bootstrap rounds use at
least the default, so that a resample in which some model happens never to win still has finite
scores. A model whose distance to the rest of its group the data do not bound (it won, or lost,
every judgment linking it to them) gets no interval and no rank, and from `min_battles` on is
flagged `unbounded` ("above", "below" or "apart"): its score is the prior's.

Honest by construction: a model with fewer than `min_battles` judgments (MIN_BATTLES, 10, by
default) gets its point score and its number of battles but no interval and no rank, and is listed
after the ranked models; so does every model when there is no bootstrap (`rounds=0`). Among the
others, rank = 1 + the number of ranked models whose lower bound is above this one's upper bound
(Chatbot Arena's rule), so models whose intervals overlap share a rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from annotate.kinds.pairwise.evaluation.groups import UNBOUNDED, comparison_groups

OUTCOMES = ("model_a", "model_b", "tie")
DEFAULT_PRIOR = 0.01
TOLERANCE = 1e-10
MAX_ITERATIONS = 10_000
MIN_BATTLES = 10
SCALE = 400 / np.log(10)  # natural-log strengths -> 400·log10 points


@dataclass(frozen=True)
class Battles:
    """Judgments aggregated: model names, unordered pairs (i < j) and per pair [i wins, j wins, ties]."""

    models: list[str]
    pairs: np.ndarray  # (K, 2) int
    counts: np.ndarray  # (K, 3) int

    @property
    def total(self) -> int:
        return int(self.counts.sum())


def battles_from(judgments: Iterable[tuple[str, str, str]]) -> Battles:
    """(model_a, model_b, winner) with winner one of OUTCOMES -> aggregated counts."""
    cells: dict[tuple[str, str], list[int]] = {}
    for a, b, winner in judgments:
        if a == b:
            raise ValueError(f"a model cannot meet itself ({a!r})")
        outcome = OUTCOMES.index(winner)
        if a > b:  # store each pair once, in name order
            a, b = b, a
            outcome = (1, 0, 2)[outcome]
        cells.setdefault((a, b), [0, 0, 0])[outcome] += 1
    models = sorted({name for pair in cells for name in pair})
    index = {name: n for n, name in enumerate(models)}
    pairs = np.array([[index[a], index[b]] for a, b in cells], dtype=np.int64).reshape(-1, 2)
    counts = np.array(list(cells.values()), dtype=np.int64).reshape(-1, 3)
    return Battles(models, pairs, counts)


def win_matrices(battles: Battles, counts: np.ndarray, prior: float) -> np.ndarray:
    """counts (B, K, 3) -> W (B, M, M): W[b, i, j] = wins of i over j, ties half each way, plus prior/2."""
    m = len(battles.models)
    wins = np.full((counts.shape[0], m, m), prior / 2.0)
    i, j = battles.pairs[:, 0], battles.pairs[:, 1]
    wins[:, i, j] += counts[:, :, 0] + counts[:, :, 2] / 2.0
    wins[:, j, i] += counts[:, :, 1] + counts[:, :, 2] / 2.0
    wins[:, np.arange(m), np.arange(m)] = 0.0
    return wins


def fit(wins: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Maximum-likelihood log-strengths (B, M), each row with mean 0, by MM iterations."""
    games = wins + np.swapaxes(wins, 1, 2)
    total_wins = wins.sum(axis=2)
    log_p = np.zeros(wins.shape[:2]) if start is None else np.broadcast_to(start, wins.shape[:2]).copy()
    p = np.exp(log_p)
    for _ in range(MAX_ITERATIONS):
        denominator = (games / (p[:, :, None] + p[:, None, :])).sum(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            new_log = np.log(total_wins) - np.log(denominator)
            new_log -= new_log.mean(axis=1, keepdims=True)
            change = np.abs(new_log - log_p).max()
        log_p = new_log
        p = np.exp(log_p)
        if not change >= TOLERANCE:  # converged, or unbounded (NaN: a model never won or never lost)
            break
    return log_p


def leaderboard(
    judgments: Iterable[tuple[str, str, str]],
    *,
    rounds: int = 1000,
    seed: int = 0,
    prior: float = DEFAULT_PRIOR,
    min_battles: int = MIN_BATTLES,
) -> dict[str, dict[str, Any]]:
    """name -> {score, lo, hi, rank, battles, group, unbounded}: scores, the 95% percentile bootstrap
    interval and the rank, both None below `min_battles` battles, without bootstrap rounds or for an
    `unbounded` model. Each connected group of the comparison graph (`group`, 1 = the most judged;
    annotate.kinds.pairwise.evaluation.groups) is fitted on its own: its scores have mean 1000 and its ranks and
    intervals compare only models of that group. Rows come group by group, ranked models first.
    ValueError for fewer than two models, or with `prior` 0 when a score would be infinite."""
    battles = battles_from(judgments)
    if len(battles.models) < 2:
        raise ValueError("a leaderboard needs judgments between at least two models")
    groups = comparison_groups(battles.models, battles.pairs, battles.counts)
    flagged = sorted(battles.models[i] for group in groups for i in group.unbounded)
    if prior <= 0 and flagged:
        raise ValueError(
            "the scores are unbounded (a model never won or never lost against the rest of its group: "
            f"{', '.join(flagged)}): use a prior above 0"
        )
    rng = np.random.default_rng(seed)
    board: dict[str, dict[str, Any]] = {}
    for number, group in enumerate(groups, start=1):
        flags = {battles.models[i]: flag for i, flag in group.unbounded.items()}
        rows = _group_board(_subset(battles, group.members), flags, rounds=rounds, rng=rng, prior=prior, min_battles=min_battles)
        board.update({name: {**row, "group": number} for name, row in rows.items()})
    order = sorted(board.items(), key=lambda item: (item[1]["group"], item[1]["rank"] is None, -item[1]["score"], item[0]))
    return dict(order)


def _group_board(
    battles: Battles, flags: dict[str, str], *, rounds: int, rng: np.random.Generator, prior: float, min_battles: int
) -> dict[str, dict[str, Any]]:
    point = fit(win_matrices(battles, battles.counts[None], prior))[0]
    if not np.all(np.isfinite(point)):
        raise ValueError("the scores are unbounded (a model never won or never lost): use a prior above 0")
    m = len(battles.models)
    # The scale's mean is taken over the bounded models, so that their scores do not move with the
    # prior's placement of the flagged ones.
    bounded = np.array([name not in flags for name in battles.models])
    centre = bounded if bounded.any() else np.ones(m, dtype=bool)
    if flags:
        point = point - point[centre].mean()
    scores = 1000 + SCALE * point
    played = np.zeros(m, dtype=np.int64)
    per_pair = battles.counts.sum(axis=1)
    np.add.at(played, battles.pairs[:, 0], per_pair)
    np.add.at(played, battles.pairs[:, 1], per_pair)
    ranked = (played >= max(min_battles, 1)) & bounded if rounds > 0 else np.zeros(m, dtype=bool)
    lo = hi = np.full(m, np.nan)
    if ranked.any():
        samples = _bootstrap(battles, rounds=rounds, rng=rng, prior=prior, start=point)
        if flags:
            samples -= samples[:, centre].mean(axis=1, keepdims=True)
        lo, hi = np.percentile(1000 + SCALE * samples, [2.5, 97.5], axis=0)
    return {
        name: {
            "score": float(scores[n]),
            "lo": float(lo[n]) if ranked[n] else None,
            "hi": float(hi[n]) if ranked[n] else None,
            "rank": 1 + int(np.sum(lo[ranked] > hi[n])) if ranked[n] else None,
            "battles": int(played[n]),
            # Shown where it explains a missing interval: a provisional model's is explained already.
            "unbounded": flags.get(name) if played[n] >= max(min_battles, 1) else None,
        }
        for n, name in enumerate(battles.models)
    }


def _subset(battles: Battles, members: list[int]) -> Battles:
    """The judgments among `members` (model indexes), re-indexed."""
    if len(members) == len(battles.models):
        return battles
    index = np.full(len(battles.models), -1)
    index[members] = np.arange(len(members))
    keep = index[battles.pairs[:, 0]] >= 0
    return Battles([battles.models[i] for i in members], index[battles.pairs[keep]], battles.counts[keep])


def rank_text(row: dict[str, Any]) -> str:
    return "–" if row["rank"] is None else str(row["rank"])


def interval_text(row: dict[str, Any]) -> str:
    """The row's interval for people: "lo – hi", or why it has none."""
    if row.get("unbounded"):
        return UNBOUNDED[row["unbounded"]][0]
    if row["lo"] is None:
        return "no interval yet" if row["battles"] else "no battles"
    return f"{row['lo']:.0f} – {row['hi']:.0f}"


def _bootstrap(battles: Battles, *, rounds: int, rng: np.random.Generator, prior: float, start: np.ndarray) -> np.ndarray:
    flat = battles.counts.reshape(-1)
    m = len(battles.models)
    chunk = max(1, 4_000_000 // (m * m))  # bounds memory for many models
    out = []
    for first in range(0, rounds, chunk):
        size = min(chunk, rounds - first)
        draws = rng.multinomial(battles.total, flat / flat.sum(), size=size).reshape(size, -1, 3)
        out.append(fit(win_matrices(battles, draws, max(prior, DEFAULT_PRIOR)), start=start))
    return np.concatenate(out)
