"""eval_responses --format duconv: the official script's numbers on hand-computed cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.tasktypes.duconv.metrics import duconv_metrics, parse_pairs


def run(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> dict:
    path = tmp_path / "pairs.txt"
    path.write_text(text, encoding="utf-8")
    call_command("eval_responses", str(path), "--format", "duconv", "--json")
    return json.loads(capsys.readouterr().out)


def test_it_scores_one_pair_by_hand(tmp_path: Path, capsys) -> None:
    result = run(tmp_path, "a b c\ta b d\n", capsys)
    assert result["n"] == 1
    assert result["F1"] == pytest.approx(2 / 3)  # chars abc / abd: 2 hits
    assert result["BLEU1"] == pytest.approx(2 / 3)
    assert result["BLEU2"] == pytest.approx(math.sqrt(2 / 3 * 1 / 2))  # bigrams ab,bc vs ab,bd
    assert result["DISTINCT1"] == 1.0 and result["DISTINCT2"] == 1.0


def test_it_pools_a_corpus_with_a_short_prediction_and_skips_empty_lines(tmp_path: Path, capsys) -> None:
    text = "a b c\ta b d\n\n   \n\t我 们\n只有一边\n我 爱 你\t我 爱 北京 天安门\n"
    result = run(tmp_path, text, capsys)
    assert result["n"] == 2  # blank, empty-prediction and one-field lines are skipped, as the script does
    # chars: hits 2 + 2 (我, 爱); predicted 3 + 3; gold 3 + 7
    p, r = 4 / 6, 4 / 10
    assert result["F1"] == pytest.approx(2 * p * r / (p + r))
    bp = math.exp(1 - 7 / 6)  # 6 predicted tokens, 7 gold
    assert result["BLEU1"] == pytest.approx(bp * 4 / 6)
    assert result["BLEU2"] == pytest.approx(bp * math.sqrt(4 / 6 * 2 / 4))


def test_it_counts_distinct_ngrams_over_predictions() -> None:
    result = duconv_metrics(["a a b\tx\n", "a b\ty\n"])
    assert result["DISTINCT1"] == pytest.approx(2 / 5)  # a a b a b
    assert result["DISTINCT2"] == pytest.approx(2 / 3)  # aa ab ab
    assert result["BLEU1"] == 0.0 and result["BLEU2"] == 0.0 and result["F1"] == 0.0


def test_it_splits_like_the_script() -> None:
    # Two spaces make an empty token; U+3000 (ideographic space) is not stripped; \r\n is.
    assert parse_pairs(["a  b\ta b\r\n"]) == [(["a", "", "b"], ["a", "b"])]
    assert parse_pairs(["\u3000好\t好\n"]) == [(["\u3000好"], ["好"])]


def test_it_refuses_a_file_without_pairs(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("\n\tonly gold\n", encoding="utf-8")
    with pytest.raises(CommandError, match="no `prediction<TAB>gold` line"):
        call_command("eval_responses", str(path), "--format", "duconv", "--json")


def test_it_scores_the_sample_gold_against_itself(sample_path: Path, tmp_path: Path, capsys) -> None:
    lines = []
    for raw in sample_path.read_text(encoding="utf-8").splitlines():
        for utterance in json.loads(raw)["conversation"][0::2]:
            lines.append(f"{utterance}\t{utterance}")
    result = run(tmp_path, "\n".join(lines) + "\n", capsys)
    assert result["n"] == len(lines)
    assert result["F1"] == pytest.approx(1.0) and result["BLEU1"] == pytest.approx(1.0) and result["BLEU2"] == pytest.approx(1.0)
    assert 0 < result["DISTINCT1"] < result["DISTINCT2"] < 1
