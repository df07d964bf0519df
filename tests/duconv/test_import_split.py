"""An imported DuConv file keeps its split: the one its name says or the one given with --split;
a re-split by hash happens only with --split hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.models import Campaign
from collect.tasktypes.duconv.models import DuConvSession

pytestmark = pytest.mark.django_db


def sessions(n: int) -> list[dict]:
    return [{"goal": [["START", f"电影{i}", "吴京"], [f"电影{i}", "主演", "吴京"]],
             "knowledge": [[f"电影{i}", "主演", "吴京"], ["吴京", "职业", "演员"]],
             "conversation": [f"你 看过 电影{i} 吗 ？", "没有 。", "主演 是 吴京 。", "他 是 演员 吧 。"]} for i in range(n)]


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in lines), encoding="utf-8")
    return path


def export(tmp_path: Path, name: str) -> dict[str, bytes]:
    out = tmp_path / name
    call_command("export_dataset", "duconv", "--out", str(out), "--valid", "0.3", "--test", "0.3", verbosity=0)
    return {split: (out / f"{split}.txt").read_bytes() for split in ("train", "dev", "test")}


def test_a_file_named_without_its_split_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "sample50.jsonl", sessions(3))
    with pytest.raises(CommandError, match=r"sample50.jsonl does not name its split .* --split train\|dev\|test"):
        call_command("import_dataset", "duconv", str(path))
    with pytest.raises(CommandError, match="--split must be one of train, dev, test or hash, not 'val'"):
        call_command("import_dataset", "duconv", str(path), "--split", "val")
    assert not Campaign.objects.exists() and not DuConvSession.objects.exists()


def test_the_given_split_is_kept_whole(tmp_path: Path) -> None:
    path = write(tmp_path / "sample50.jsonl", sessions(20))
    call_command("import_dataset", "duconv", str(path), "--split", "dev", verbosity=0)
    files = export(tmp_path, "out")
    assert files == {"train": b"", "dev": path.read_bytes(), "test": b""}


def test_a_resplit_by_hash_happens_when_asked(tmp_path: Path) -> None:
    path = write(tmp_path / "sample50.jsonl", sessions(20))
    call_command("import_dataset", "duconv", str(path), "--split", "hash", verbosity=0)
    assert set(DuConvSession.objects.values_list("split", flat=True)) == {""}
    files = export(tmp_path, "out")
    counts = {split: len(body.splitlines()) for split, body in files.items()}
    assert sum(counts.values()) == 20 and counts["train"] < 20  # 20 draws at 30/30/40: all in train is 1e-8


def test_the_shared_dev_sample_under_another_name_exports_as_dev(sample_path: Path, tmp_path: Path) -> None:
    copy = tmp_path / "sample.jsonl"
    copy.write_bytes(sample_path.read_bytes())
    call_command("import_dataset", "duconv", str(copy), "--split", "dev", verbosity=0)
    assert export(tmp_path, "out") == {"train": b"", "dev": sample_path.read_bytes(), "test": b""}
