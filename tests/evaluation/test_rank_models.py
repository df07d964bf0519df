"""`manage.py rank_models FILE --json`: output shape, and line-numbered errors for bad files."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.evaluation.test_bradley_terry import cycle_free


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "judgments.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(path: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("rank_models", str(path), *args, stdout=out)
    return out.getvalue()


def test_it_prints_the_leaderboard_as_json(tmp_path: Path) -> None:
    lines = [json.dumps({"model_a": a, "model_b": b, "winner": w, "judge": "x"}) for a, b, w in cycle_free()]
    path = write(tmp_path, lines[:3] + [""] + lines[3:])
    data = json.loads(run(path, "--json", "--rounds", "200", "--prior", "0"))
    models = data["models"]
    assert set(models) == {"A", "B", "C"}
    assert set(models["A"]) == {"score", "lo", "hi", "rank", "battles", "group", "unbounded"}
    assert models["A"]["score"] - models["B"]["score"] == pytest.approx(400 * math.log10(2), abs=1e-3)
    assert sum(row["score"] for row in models.values()) / 3 == pytest.approx(1000)
    assert models["B"]["battles"] == 6


def test_it_prints_a_table_without_json(tmp_path: Path) -> None:
    path = write(tmp_path, [json.dumps({"model_a": a, "model_b": b, "winner": w}) for a, b, w in cycle_free()])
    text = run(path, "--rounds", "0")
    assert text.splitlines()[1].split()[:2] == ["–", "A"]  # no bootstrap: no ranks
    assert "no interval and no rank: no bootstrap rounds" in text
    text = run(path, "--rounds", "200", "--min-battles", "6")
    assert [line.split()[:2] for line in text.splitlines()[1:4]] == [["1", "A"], ["1", "B"], ["1", "C"]]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"model_a": "A", "model_b": "B", "winner": "model_a"}', "{not json"], "line 2: not valid JSON"),
        (['["A", "B", "model_a"]'], "line 1: expected a JSON object"),
        (['{"model_a": "A", "model_b": "", "winner": "tie"}'], "line 1: model_b must be a non-empty string"),
        (['{"model_a": "A", "winner": "tie"}'], "line 1: model_b must be a non-empty string"),
        (['{"model_a": "A", "model_b": "A", "winner": "tie"}'], "line 1: model_a and model_b are the same model"),
        (["", '{"model_a": "A", "model_b": "B", "winner": "A"}'], "line 2: winner must be one of model_a, model_b, tie"),
        ([""], "holds no counted judgments"),
        (['{"model_a": "A", "model_b": "B", "winner": "tie", "counted": false}'], r"no counted judgments \(1 left out as not counted\)"),
        (['{"model_a": "A", "model_b": "B", "winner": "tie", "counted": "no"}'], "line 1: counted must be true or false"),
        (['{"model_a": "A", "model_b": "B", "winner": "tie", "question": 3}'], "line 1: question must be a non-empty string"),
        (['{"model_a": "A", "model_b": "B", "winner": "tie", "question": "engaging"}', '{"model_a": "A", "model_b": "B", "winner": "tie"}'],
         "some lines name a question and 1 do not"),
    ],
)
def test_it_names_the_line_at_fault(tmp_path: Path, lines: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(write(tmp_path, lines), "--json")


def test_it_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot read"):
        run(tmp_path / "nope.jsonl")


def test_one_judgment_shows_no_interval_and_no_ranks(tmp_path: Path) -> None:
    # The case seen in the field: "1461–1461" and ranks 1 and 2 from a single judgment.
    path = write(tmp_path, [json.dumps({"model_a": "kb-retrieval", "model_b": "no-knowledge", "winner": "model_a"})])
    models = json.loads(run(path, "--json"))["models"]
    assert [(row["rank"], row["lo"], row["hi"], row["battles"]) for row in models.values()] == [(None, None, None, 1)] * 2
    text = run(path)
    assert "1461" not in text and all(line.split()[0] == "–" for line in text.splitlines()[1:3])
    assert "no interval yet" in text and "fewer than 10 judgments" in text


def test_judges_left_out_do_not_count_and_each_question_gets_its_own_board(tmp_path: Path) -> None:
    lines = [json.dumps({"model_a": a, "model_b": b, "winner": w, "question": "engaging"}) for a, b, w in cycle_free()]
    lines += [json.dumps({"model_a": "A", "model_b": "B", "winner": "model_b", "question": "humanlike"})] * 3
    lines += [json.dumps({"model_a": "A", "model_b": "C", "winner": "model_b", "question": "engaging", "counted": False})] * 50
    path = write(tmp_path, lines)
    data = json.loads(run(path, "--json", "--rounds", "50"))
    boards = data["questions"]
    assert set(boards) == {"engaging", "humanlike"}
    assert boards["engaging"]["models"]["C"]["battles"] == 8  # the 50 left-out judgments are not there
    assert boards["humanlike"]["models"]["B"]["score"] > boards["humanlike"]["models"]["A"]["score"]
    one = json.loads(run(path, "--json", "--rounds", "50", "--question", "humanlike"))
    assert one["question"] == "humanlike" and set(one["models"]) == {"A", "B"}
    with pytest.raises(CommandError, match="no counted judgment has question 'knowledgeable'"):
        run(path, "--question", "knowledgeable")
    assert "question: engaging" in run(path, "--rounds", "0")
