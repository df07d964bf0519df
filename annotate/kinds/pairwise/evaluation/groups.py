"""Which models a set of pairwise judgments can order.

Bradley–Terry's likelihood depends only on the differences of strength between models that met, so
two groups of the comparison graph (its connected components) with no judgment between them can be
shifted apart by any constant: their order is not in the data (hturner/BradleyTerry2 #6 is the
kind). Each group is ranked on its own scale, and any judgment between two groups connects them.

Within a connected group the maximum-likelihood estimate exists only when the win graph (an edge
i → j when i won or tied at least one judgment against j) is strongly connected (Zermelo 1929; Ford
1957). When it is not, the distance between its strongly connected parts is unbounded: a part that
never lost a judgment to the rest lies "above" them by an unknown amount (the estimate is infinite
without a prior, and set by the prior with one). The models of the group's main part (the part with
the most judgments among its members) are bounded, unless it is a single model; every other model
is flagged, with the side the data leave open: "above", "below", or "apart" (linked to the main
part only through other flagged parts, in both directions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components


@dataclass(frozen=True)
class Group:
    members: list[int]  # model indexes, ascending (name order)
    judgments: int
    unbounded: dict[int, str]  # model index -> "above" | "below" | "apart"


def comparison_groups(models: list[str], pairs: np.ndarray, counts: np.ndarray) -> list[Group]:
    """The connected groups of the comparison graph, the one with the most judgments first (then by
    first model name). pairs (K, 2) are model indexes i < j, counts (K, 3) [i wins, j wins, ties]."""
    m = len(models)
    ones = np.ones(len(pairs))
    _, labels = connected_components(csr_matrix((ones, (pairs[:, 0], pairs[:, 1])), shape=(m, m)), directed=False)
    per_pair = counts.sum(axis=1)
    groups = []
    for label in np.unique(labels):
        members = [int(i) for i in np.flatnonzero(labels == label)]
        inside = labels[pairs[:, 0]] == label
        groups.append(Group(members, int(per_pair[inside].sum()), _unbounded(m, pairs[inside], counts[inside])))
    return sorted(groups, key=lambda g: (-g.judgments, models[g.members[0]]))


def _unbounded(m: int, pairs: np.ndarray, counts: np.ndarray) -> dict[int, str]:
    i, j = pairs[:, 0], pairs[:, 1]
    beat_forward, beat_back = counts[:, 0] + counts[:, 2] > 0, counts[:, 1] + counts[:, 2] > 0
    rows = np.concatenate([i[beat_forward], j[beat_back]])
    cols = np.concatenate([j[beat_forward], i[beat_back]])
    wins = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, m))
    _, part = connected_components(wins, directed=True, connection="strong")
    members = np.unique(pairs)
    if len(np.unique(part[members])) == 1:
        return {}
    within = np.zeros(m, dtype=np.int64)
    same = part[i] == part[j]
    np.add.at(within, part[i[same]], counts[same].sum(axis=1))
    main = max(np.unique(part[members]), key=lambda p: (within[p], -members[part[members] == p].min()))
    anchor = int(members[part[members] == main][0])
    below = set(breadth_first_order(wins, anchor, directed=True, return_predecessors=False).tolist())
    above = set(breadth_first_order(wins.T.tocsr(), anchor, directed=True, return_predecessors=False).tolist())
    flags = {}
    for model in members.tolist():
        if part[model] != main:
            flags[model] = "above" if model in above else "below" if model in below else "apart"
    if np.sum(part[members] == main) == 1:  # a lone model bounds nothing: it is flagged too
        sides = set(flags.values())
        flags[anchor] = "below" if sides == {"above"} else "above" if sides == {"below"} else "apart"
    return flags


def group_summary(board: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """[{group, models, judgments}] from a leaderboard's rows (each judgment counts in two rows)."""
    groups: dict[int, dict[str, Any]] = {}
    for name, row in board.items():
        group = groups.setdefault(row["group"], {"group": row["group"], "models": [], "judgments": 0})
        group["models"].append(name)
        group["judgments"] += row["battles"]
    for group in groups.values():
        group["judgments"] //= 2
    return [groups[number] for number in sorted(groups)]


def connecting_pairs(board: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The fewest pairs whose judgments connect every group: one pair from group 1 to each other
    group, between each group's most-judged model (its score is the best known, so one judgment
    across carries the most), as [{groups: [1, k], model_a, model_b}]."""
    anchors: dict[int, str] = {}
    for name, row in board.items():
        best = anchors.get(row["group"])
        if best is None or (row["battles"], best) > (board[best]["battles"], name):
            anchors[row["group"]] = name
    numbers = sorted(anchors)
    return [
        {"groups": [numbers[0], number], "model_a": anchors[numbers[0]], "model_b": anchors[number]} for number in numbers[1:]
    ]


# A flagged model's interval cell, and why (annotate.kinds.pairwise.evaluation.bradley_terry.interval_text and the notes).
UNBOUNDED = {
    "above": ("no upper bound", "won every judgment linking it to the rest of its group"),
    "below": ("no lower bound", "lost every judgment linking it to the rest of its group"),
    "apart": ("not bounded", "linked to the rest of its group only through models that won or lost every judgment"),
}


def groups_notes(board: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What a leaderboard cannot say, in sentences: groups that cannot be ordered and the judgments
    that would connect them, and the models whose scores only the prior places."""
    notes = []
    groups = group_summary(board)
    if len(groups) > 1:
        notes.append(
            f"These judgments form {len(groups)} groups of models never compared with each other, directly or through "
            "other models: each group is ranked on its own scale (mean 1000), and the groups cannot be ordered."
        )
        pairs = "; ".join(f"{p['model_a']} vs {p['model_b']} (group {p['groups'][0]} – group {p['groups'][1]})" for p in connecting_pairs(board))
        notes.append(
            f"To connect them, judge {pairs}: any judgment between two groups connects them, and they can be ordered "
            "once the judgments across go both ways (a win each way, or a tie)."
        )
    for name, row in board.items():
        if row.get("unbounded"):
            notes.append(f"{name} {UNBOUNDED[row['unbounded']][1]}: its score is set by the prior, with no interval and no rank.")
    return notes
