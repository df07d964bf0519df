"""An honest leaderboard: models never compared (directly or through others) are ranked in separate
groups that are never ordered against each other, with the judgments that would connect them; a
model that won or lost every judgment linking it to the rest of its group gets no interval and no
rank; a file naming unexpected models is refused at its line and field."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.kinds.pairwise.evaluation.bradley_terry import leaderboard
from annotate.kinds.pairwise.evaluation.groups import connecting_pairs, group_summary, groups_notes
from tests.evaluation.test_bradley_terry import cycle_free, simulated

CASE_FILE = Path("/work/shared/cases/bt_disconnected.jsonl")


def two_pairs(first: int = 30, second: int = 10) -> list[tuple[str, str, str]]:
    """The reported shape: alpha–beta and gamma–delta judged apart, 30:10 each."""
    return [
        *[("alpha", "beta", "model_a")] * first, *[("alpha", "beta", "model_b")] * second,
        *[("gamma", "delta", "model_a")] * first, *[("gamma", "delta", "model_b")] * second,
    ]


def run(path: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("rank_models", str(path), *args, stdout=out)
    return out.getvalue()


def write(tmp_path: Path, judgments: list[tuple[str, str, str]]) -> Path:
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(json.dumps({"model_a": a, "model_b": b, "winner": w}) + "\n" for a, b, w in judgments), encoding="utf-8")
    return path


@pytest.mark.parametrize("prior", [0.0, 0.01])
def test_groups_never_compared_are_ranked_apart(prior: float) -> None:
    board = leaderboard(two_pairs(), rounds=300, seed=1, prior=prior)
    assert {name: (row["group"], row["rank"]) for name, row in board.items()} == {
        "alpha": (1, 1), "beta": (1, 2), "gamma": (2, 1), "delta": (2, 2)
    }
    assert list(board) == ["alpha", "beta", "gamma", "delta"]  # group by group
    assert group_summary(board) == [
        {"group": 1, "models": ["alpha", "beta"], "judgments": 40},
        {"group": 2, "models": ["gamma", "delta"], "judgments": 40},
    ]
    assert connecting_pairs(board) == [{"groups": [1, 2], "model_a": "alpha", "model_b": "delta"}]


def test_a_group_is_fitted_as_if_the_others_were_not_there() -> None:
    # Shifting one group's strengths by a constant leaves the likelihood unchanged, so nothing of the
    # other group may move its scores or intervals; the prior does not link the groups either.
    together = leaderboard(two_pairs(30, 10) + [("eps", "zeta", "model_a")] * 3 + [("eps", "zeta", "tie")], rounds=0)
    alone = leaderboard([j for j in two_pairs(30, 10) if j[0] == "gamma"], rounds=0)
    assert together["gamma"]["score"] == pytest.approx(alone["gamma"]["score"], abs=1e-9)
    assert together["gamma"]["group"] == 2 and together["eps"]["group"] == 3
    assert [p["model_b"] for p in connecting_pairs(together)] == ["delta", "eps"]  # 2 pairs connect 3 groups


def test_a_connected_board_keeps_its_shape() -> None:
    board = leaderboard(cycle_free(), rounds=200, seed=3, min_battles=6)
    assert {row["group"] for row in board.values()} == {1} and connecting_pairs(board) == []
    assert groups_notes(board) == []


def test_a_model_that_won_every_judgment_gets_no_interval_and_no_rank() -> None:
    # 12–0: every resample is 12–0 too, so the bootstrap "interval" would be the prior's point.
    board = leaderboard([("A", "B", "model_a")] * 12, rounds=200, seed=1)
    assert board["A"]["unbounded"] == "above" and board["B"]["unbounded"] == "below"
    assert all(row["rank"] is None and row["lo"] is None for row in board.values())
    assert board["A"]["score"] > board["B"]["score"]
    assert "A won every judgment linking it to the rest of its group" in " ".join(groups_notes(board))


def test_only_the_model_beyond_the_data_loses_its_rank() -> None:
    strengths = {"top": 1300.0, "mid": 1000.0, "low": 700.0}
    judgments = simulated(strengths, 3000, seed=3) + [("rare", "low", "model_a")] * 12
    board = leaderboard(judgments, rounds=200, seed=2)
    assert board["rare"]["unbounded"] == "above" and board["rare"]["rank"] is None
    assert [board[m]["rank"] for m in ("top", "mid", "low")] == [1, 2, 3]
    # The bounded models' scale (mean 1000 over them) does not move with the prior; rare's score does.
    other = leaderboard(judgments, rounds=0, prior=0.001)
    for name in ("top", "mid", "low"):
        assert other[name]["score"] == pytest.approx(board[name]["score"], abs=1.0)
    assert other["rare"]["score"] - board["rare"]["score"] > 100


def test_without_a_prior_a_tier_that_never_lost_is_refused() -> None:
    # Every model has a win and a loss, yet {A, B} beat {C, D} in every judgment between them: the
    # likelihood grows without end as the tiers move apart.
    mixed = [("A", "B", "model_a"), ("A", "B", "model_b"), ("C", "D", "model_a"), ("C", "D", "model_b")]
    judgments = mixed * 3 + [("A", "C", "model_a"), ("B", "D", "model_a")]
    with pytest.raises(ValueError, match="never won or never lost against the rest of its group: C, D"):
        leaderboard(judgments, rounds=0, prior=0)
    board = leaderboard(judgments, rounds=100, min_battles=5)
    assert {board[m]["unbounded"] for m in "CD"} == {"below"} and board["A"]["unbounded"] is None
    assert board["A"]["rank"] == board["B"]["rank"] == 1 and board["C"]["rank"] is None


def test_rank_models_says_the_groups_cannot_be_ordered(tmp_path: Path) -> None:
    path = write(tmp_path, two_pairs())
    for prior in ("0", "0.01"):
        text = run(path, "--prior", prior, "--rounds", "200")
        assert "2 groups of models never compared with each other" in text and "cannot be ordered" in text
        assert "judge alpha vs delta (group 1 – group 2)" in text
        ranks = [line.split()[:2] for line in text.splitlines() if line.split()[:1] in (["1"], ["2"], ["3"])]
        assert ranks == [["1", "alpha"], ["2", "beta"], ["1", "gamma"], ["2", "delta"]]
    data = json.loads(run(path, "--json", "--rounds", "100"))
    assert [g["models"] for g in data["groups"]] == [["alpha", "beta"], ["gamma", "delta"]]
    assert data["connect"] == [{"groups": [1, 2], "model_a": "alpha", "model_b": "delta"}]


def test_the_reported_case_file_ranks_within_groups(tmp_path: Path) -> None:
    if not CASE_FILE.is_file():
        pytest.skip(f"{CASE_FILE} is not here")
    path = Path(shutil.copy(CASE_FILE, tmp_path / CASE_FILE.name))
    for prior in ("0", "0.01"):
        models = json.loads(run(path, "--json", "--prior", prior))["models"]
        assert {name: (row["group"], row["rank"]) for name, row in models.items()} == {
            "alpha": (1, 1), "beta": (1, 2), "gamma": (2, 1), "delta": (2, 2)
        }
        assert "cannot be ordered" in run(path, "--prior", prior)


@pytest.mark.parametrize(
    ("lines", "args", "message"),
    [
        (['{"model_a": "alpha", "model_b": "beta", "winner": "model_a"}', '{"model_a": "alpha", "model_b": "gama", "winner": "tie"}'],
         ["--models", "alpha", "beta", "gamma"], r"line 2: model_b 'gama' is not one of the models given \(alpha, beta, gamma\)"),
        (['{"model_a": "beta", "model_b": "beta", "winner": "model_a"}'], [], "line 1: model_a and model_b are the same model"),
        (['{"model_a": "alpha", "model_b": "beta", "winner": "model_a"}'], ["--models", "alpha"], "--models must name at least two models"),
    ],
)
def test_a_file_with_unknown_or_self_compared_models_is_refused(tmp_path: Path, lines: list[str], args: list[str], message: str) -> None:
    path = tmp_path / "judgments.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        run(path, *args)


def test_a_model_given_but_never_judged_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, two_pairs())
    data = json.loads(run(path, "--json", "--rounds", "50", "--models", "alpha", "beta", "gamma", "delta", "omega"))
    assert data["unjudged"] == ["omega"] and "omega" not in data["models"]
    assert "Given but never judged (not on the leaderboard; judge each against any model): omega" in run(
        path, "--rounds", "0", "--models", "alpha", "beta", "gamma", "delta", "omega"
    )
