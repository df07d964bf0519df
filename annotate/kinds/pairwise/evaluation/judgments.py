"""Reading a JSON Lines file of pairwise outcomes: one {"model_a", "model_b", "winner"} per line,
winner "model_a", "model_b" or "tie". Two optional keys are read: "question" (a string: the ACUTE
question the judgment answers, so that each question gets its own leaderboard) and "counted" (false:
the judge failed the control pairs, and the line is left out). Other keys are allowed (and ignored),
blank lines skipped; anything else is an error naming its line. Given the `models` expected, a line
naming another model is an error too."""

from __future__ import annotations

import json
from typing import Collection, Iterable

from annotate.kinds.pairwise.evaluation.bradley_terry import OUTCOMES


class JudgmentFileError(ValueError):
    pass


def parse_judgments_by_question(
    lines: Iterable[str], *, models: Collection[str] | None = None
) -> list[tuple[str | None, tuple[str, str, str]]]:
    """(question or None, (model_a, model_b, winner)) per counted judgment; JudgmentFileError names
    the line and field at fault."""
    judgments: list[tuple[str | None, tuple[str, str, str]]] = []
    left_out = 0
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
            if models is not None and value not in models:
                raise JudgmentFileError(f"{where}: {key} {value!r} is not one of the models given ({', '.join(sorted(models))})")
        if record["model_a"] == record["model_b"]:
            raise JudgmentFileError(f"{where}: model_a and model_b are the same model ({record['model_a']!r})")
        if record.get("winner") not in OUTCOMES:
            raise JudgmentFileError(f"{where}: winner must be one of {', '.join(OUTCOMES)}, not {record.get('winner')!r}")
        question, counted = record.get("question"), record.get("counted", True)
        if question is not None and (not isinstance(question, str) or not question.strip()):
            raise JudgmentFileError(f"{where}: question must be a non-empty string when given")
        if not isinstance(counted, bool):
            raise JudgmentFileError(f"{where}: counted must be true or false when given, not {counted!r}")
        if not counted:
            left_out += 1
            continue
        judgments.append((question, (record["model_a"], record["model_b"], record["winner"])))
    if not judgments:
        extra = f" ({left_out} left out as not counted)" if left_out else ""
        raise JudgmentFileError(f"the file holds no counted judgments{extra}")
    if len({name for _q, (a, b, _w) in judgments for name in (a, b)}) < 2:
        raise JudgmentFileError("the judgments name fewer than two models")
    return judgments
