"""Reading a JSON Lines file of pairwise outcomes: one {"model_a", "model_b", "winner"} per line,
winner "model_a", "model_b" or "tie". Other keys are allowed (and ignored), blank lines skipped;
anything else is an error naming its line."""

from __future__ import annotations

import json
from typing import Iterable

from annotate.evaluation.bradley_terry import OUTCOMES


class JudgmentFileError(ValueError):
    pass


def parse_judgments(lines: Iterable[str]) -> list[tuple[str, str, str]]:
    judgments = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise JudgmentFileError(f"{where}: not valid JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise JudgmentFileError(f"{where}: expected a JSON object with model_a, model_b and winner")
        for key in ("model_a", "model_b"):
            value = record.get(key)
            if not isinstance(value, str) or not value.strip():
                raise JudgmentFileError(f"{where}: {key} must be a non-empty string")
        if record["model_a"] == record["model_b"]:
            raise JudgmentFileError(f"{where}: model_a and model_b are the same model ({record['model_a']!r})")
        if record.get("winner") not in OUTCOMES:
            raise JudgmentFileError(f"{where}: winner must be one of {', '.join(OUTCOMES)}, not {record.get('winner')!r}")
        judgments.append((record["model_a"], record["model_b"], record["winner"]))
    if not judgments:
        raise JudgmentFileError("the file holds no judgments")
    if len({name for a, b, _ in judgments for name in (a, b)}) < 2:
        raise JudgmentFileError("the judgments name fewer than two models")
    return judgments
