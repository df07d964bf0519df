"""DuConv's test-format samples files (the release's test_1/test_2, and the baseline's conversion of
a session file: `goal`, `knowledge`, `history`, and `response` where given) import as rooms and
`export_dataset duconv --samples` writes them back byte for byte; the session files leave them out."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.models import Message
from collect.tasktypes.duconv.models import DuConvSession

pytestmark = pytest.mark.django_db

GOAL = [["START", "电影0", "吴京"], ["电影0", "主演", "吴京"]]
KNOWLEDGE = [["电影0", "主演", "吴京"], ["吴京", "职业", "演员"]]


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in lines), encoding="utf-8")
    return path


def export(tmp_path: Path, *flags: str) -> tuple[dict[str, bytes], str]:
    out, said = tmp_path / "-".join(["out", *flags]), io.StringIO()
    call_command("export_dataset", "duconv", *flags, "--out", str(out), stdout=said)
    return {split: (out / f"{split}.txt").read_bytes() for split in ("train", "dev", "test")}, said.getvalue()


def test_a_samples_file_round_trips_with_and_without_responses(tmp_path: Path) -> None:
    samples = [
        {"goal": GOAL, "knowledge": KNOWLEDGE, "history": [], "response": "你 看过 电影0 吗 ？"},
        {"goal": GOAL, "knowledge": KNOWLEDGE, "history": ["你 看过 电影0 吗 ？", "没有 。"], "response": "主演 是 吴京 。"},
        {"goal": GOAL, "knowledge": KNOWLEDGE, "history": []},  # the released test files withhold the response
        {"knowledge": KNOWLEDGE, "goal": GOAL, "note": "kept in place", "history": ["你 好 。", "你 好 。"]},
    ]
    path = write(tmp_path / "test_1.txt", samples)
    call_command("import_dataset", "duconv", str(path), verbosity=0)

    rooms = list(DuConvSession.objects.order_by("position"))
    assert [r.split for r in rooms] == ["test"] * 4
    texts = [list(Message.objects.filter(room=r.room).order_by("seq").values_list("text", flat=True)) for r in rooms]
    assert texts == [["你 看过 电影0 吗 ？"], ["你 看过 电影0 吗 ？", "没有 。", "主演 是 吴京 。"], [], ["你 好 。", "你 好 。"]]
    files, _ = export(tmp_path, "--samples")
    assert files == {"train": b"", "dev": b"", "test": path.read_bytes()}
    files, said = export(tmp_path)
    assert files == {"train": b"", "dev": b"", "test": b""}
    assert "4 imported test-format sample(s) left out: they export with --samples" in said
    from annotate.kinds.duconv_eval.scoring import duconv_payload

    assert [duconv_payload(r.room) for r in rooms] == [None] * 4  # nor are they human-evaluated as dialogues


@pytest.mark.parametrize(
    ("sample", "text"),
    [
        ({"goal": GOAL, "knowledge": KNOWLEDGE, "history": "你 好 。"}, "line 2: 'history' must be a list of strings"),
        ({"goal": GOAL, "knowledge": KNOWLEDGE, "history": [], "response": ["你 好 。"]}, "line 2: 'response' must be a string"),
        ({"goal": GOAL, "history": []}, "line 2: missing 'knowledge'"),
    ],
)
def test_a_malformed_sample_is_refused_by_line_and_field(tmp_path: Path, sample: dict, text: str) -> None:
    good = {"goal": GOAL, "knowledge": KNOWLEDGE, "history": [], "response": "你 好 。"}
    path = write(tmp_path / "test_2.txt", [good, sample])
    with pytest.raises(CommandError, match=text):
        call_command("import_dataset", "duconv", str(path))
    assert not DuConvSession.objects.exists()


def test_the_baselines_conversion_of_the_shared_dev_sample_round_trips(sample_path: Path, tmp_path: Path) -> None:
    """The official baseline's convert_session_to_sample: one sample per agent turn (even index)."""
    converted = tmp_path / "dev_samples.txt"
    with converted.open("w", encoding="utf-8", newline="\n") as out:
        for line in sample_path.read_text(encoding="utf-8").splitlines():
            session = json.loads(line)
            for j in range(0, len(session["conversation"]), 2):
                sample = {"goal": session["goal"], "knowledge": session["knowledge"],
                          "history": session["conversation"][:j], "response": session["conversation"][j]}
                out.write(json.dumps(sample, ensure_ascii=False) + "\n")
    call_command("import_dataset", "duconv", str(converted), verbosity=0)
    files, _ = export(tmp_path, "--samples")
    assert files == {"train": b"", "dev": converted.read_bytes(), "test": b""}
