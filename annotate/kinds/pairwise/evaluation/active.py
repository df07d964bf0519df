"""Active sampling of model pairs, and when a ranking is settled (pure numpy; batched over studies).

As Chatbot Arena samples (Chiang et al. 2024, §5: a pair's weight is the expected shrinking of an
interval from one more judgment of it), the next pair is drawn where a judgment most reduces the
uncertainty of the ranking. From the Bradley–Terry fit (bradley_terry.fit, with `SAMPLER_PRIOR`
virtual ties per pair, so that an unseen model has a finite, wide estimate) and its asymptotic
covariance Σ (the pseudo-inverse of the Fisher information Σ_ij n_ij·p_ij·(1 − p_ij)·u_ij·u_ijᵀ,
u_ij = e_i − e_j), one more judgment of pair (i, j) narrows model k's 95% interval from 1.96·σ_k to
1.96·√(σ_k² − c·(Σu_ij)_k² / (1 + c·u_ijᵀΣu_ij)), c = p_ij·(1 − p_ij) (Sherman–Morrison). A pair's
weight sums that narrowing over every two neighbours in the fitted order whose intervals overlap,
each weighted by its overlap as a share of the two half-widths: judgments go where the intervals
overlap most and shrink most, and pairs already apart get little. A share `EXPLORATION` of the
draws is uniform over the pairs, so that no pair is starved by an early, wrong estimate.

The ranking is settled when every two models adjacent in the fitted order have disjoint asymptotic
95% intervals (θ_i ± 1.96·√cov_ii, the leaderboard's scale and rank rule: all ranks distinct).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from annotate.kinds.pairwise.evaluation.bradley_terry import fit

SAMPLER_PRIOR = 0.1  # virtual ties per pair in the sampler's fit (not in the leaderboard's)
EXPLORATION = 0.1
Z95 = float(norm.ppf(0.975))


def win_counts(models: list[str], judgments: list[tuple[str, str, str]]) -> np.ndarray:
    """(M, M) wins[i, j] of models[i] over models[j], a tie half each way; ValueError for a model
    not in `models`."""
    index = {name: n for n, name in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    for a, b, winner in judgments:
        if a not in index or b not in index:
            raise ValueError(f"a judgment names a model the job does not have: {a!r} vs {b!r}")
        i, j = index[a], index[b]
        share = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5}[winner]
        wins[i, j] += share
        wins[j, i] += 1.0 - share
    return wins


def estimate(wins: np.ndarray, prior: float = SAMPLER_PRIOR, start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """wins (B, M, M) -> strengths θ (B, M) in natural-log units, mean 0, and their asymptotic
    covariance (B, M, M) in the same gauge."""
    m = wins.shape[-1]
    smoothed = wins + prior / 2.0 * (1.0 - np.eye(m))
    theta = fit(smoothed, start=start)
    games = smoothed + np.swapaxes(smoothed, 1, 2)
    p = 1.0 / (1.0 + np.exp(theta[:, None, :] - theta[:, :, None]))  # p[b, i, j] = P(i beats j)
    weight = games * p * (1.0 - p)
    information = np.eye(m) * weight.sum(axis=2)[:, :, None] - weight
    return theta, np.linalg.pinv(information, hermitian=True)


def pair_weights(theta: np.ndarray, covariance: np.ndarray, z: float = Z95) -> np.ndarray:
    """(B, M, M) w_ij for i < j (zero elsewhere): see the module's docstring."""
    b, m = theta.shape
    i, j = np.triu_indices(m, 1)
    pairs = np.arange(len(i))
    sd = np.sqrt(np.maximum(np.diagonal(covariance, axis1=1, axis2=2), 0.0))
    d = theta[:, i] - theta[:, j]
    c = 1.0 / (2.0 + np.exp(d) + np.exp(-d))  # p·(1 − p) at the fitted difference
    shift = covariance[:, :, i] - covariance[:, :, j]  # (B, M, K): cov·(e_i − e_j)
    v = np.maximum(shift[:, i, pairs] - shift[:, j, pairs], 1e-12)
    after = np.sqrt(np.maximum(sd[:, :, None] ** 2 - c[:, None, :] * shift**2 / (1.0 + c * v)[:, None, :], 0.0))
    shrink = z * (sd[:, :, None] - after)  # (B, M, K): how much a judgment of pair k narrows each model's interval
    order = np.argsort(-theta, axis=1)
    upper, lower = order[:, :-1], order[:, 1:]  # (B, M − 1): neighbours in the fitted order
    rows = np.arange(b)[:, None]
    width = z * (sd[rows, upper] + sd[rows, lower])
    share = np.maximum(width - (theta[rows, upper] - theta[rows, lower]), 0.0) / np.maximum(width, 1e-12)
    gain = (share[:, :, None] * (shrink[rows, upper] + shrink[rows, lower])).sum(axis=1)
    out = np.zeros((b, m, m))
    out[:, i, j] = gain
    return out


def pair_probabilities(weights: np.ndarray, allowed: np.ndarray, exploration: float = EXPLORATION) -> np.ndarray:
    """(B, M, M) probability of drawing each allowed pair (i < j): (1 − ε)·w / Σw + ε / pairs."""
    allowed = np.triu(allowed, 1)
    w = np.where(allowed, weights, 0.0)
    total = w.sum(axis=(1, 2), keepdims=True)
    pairs = allowed.sum(axis=(-2, -1), keepdims=True)
    uniform = allowed / np.maximum(pairs, 1)
    greedy = np.where(total > 0, w / np.where(total > 0, total, 1.0), uniform)
    return (1.0 - exploration) * greedy + exploration * uniform


def settled(theta: np.ndarray, covariance: np.ndarray, z: float = Z95) -> np.ndarray:
    """(B,) whether every two models adjacent in the fitted order have disjoint intervals."""
    sd = np.sqrt(np.maximum(np.diagonal(covariance, axis1=1, axis2=2), 0.0))
    return ~_overlapping(theta, sd, z).any(axis=1)


def _overlapping(theta: np.ndarray, sd: np.ndarray, z: float) -> np.ndarray:
    """(B, M) whether each model's interval θ ± z·sd overlaps a neighbour's in the fitted order."""
    order = np.argsort(-theta, axis=1)
    top, spread = np.take_along_axis(theta, order, 1), z * np.take_along_axis(sd, order, 1)
    overlap = top[:, :-1] - spread[:, :-1] <= top[:, 1:] + spread[:, 1:]  # (B, M − 1): sorted k and k + 1
    sorted_open = np.zeros(theta.shape, dtype=bool)
    sorted_open[:, :-1] |= overlap
    sorted_open[:, 1:] |= overlap
    out = np.zeros(theta.shape, dtype=bool)
    np.put_along_axis(out, order, sorted_open, 1)
    return out
