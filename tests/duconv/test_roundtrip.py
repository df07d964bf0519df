"""The shared 200-session DuConv dev sample: import, then export, gives the same lines back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from collect.models import Message
from collect.tasktypes.duconv.models import DuConvSession
from retrieval.models import Triple

pytestmark = pytest.mark.django_db


def test_it_round_trips_the_sample_exactly(sample_path: Path, tmp_path: Path) -> None:
    original = sample_path.read_bytes()
    copy = tmp_path / "dev.txt"
    copy.write_bytes(original)
    call_command("import_dataset", "duconv", str(copy), verbosity=0)
    assert DuConvSession.objects.count() == 200
    call_command("export_dataset", "duconv", "--out", str(tmp_path / "out"), verbosity=0)
    assert (tmp_path / "out" / "dev.txt").read_bytes() == original
    assert (tmp_path / "out" / "train.txt").read_bytes() == b""
    assert (tmp_path / "out" / "test.txt").read_bytes() == b""


def test_it_stores_agent_turns_as_even_indexes_and_the_graph(sample_path: Path, tmp_path: Path) -> None:
    call_command("import_dataset", "duconv", str(sample_path), verbosity=0)
    first = json.loads(sample_path.read_text(encoding="utf-8").splitlines()[0])
    session = DuConvSession.objects.get(position=0)
    messages = list(Message.objects.filter(room=session.room).order_by("seq"))
    assert [m.text for m in messages] == first["conversation"]
    assert {m.role for m in messages[0::2]} == {"agent"} and {m.role for m in messages[1::2]} == {"user"}
    source = session.room.campaign.knowledge_source
    for triple in first["knowledge"]:
        assert Triple.objects.filter(source=source, subject=triple[0], property=triple[1], value=triple[2]).count() == 1


def test_it_writes_one_sample_per_agent_turn(sample_path: Path, tmp_path: Path) -> None:
    call_command("import_dataset", "duconv", str(sample_path), verbosity=0)
    call_command("export_dataset", "duconv", "--samples", "--out", str(tmp_path / "s"), verbosity=0)
    sessions = [json.loads(line) for line in sample_path.read_text(encoding="utf-8").splitlines()]
    samples = [json.loads(line) for line in (tmp_path / "s" / "dev.txt").read_text(encoding="utf-8").splitlines()]
    assert len(samples) == sum((len(s["conversation"]) + 1) // 2 for s in sessions)
    first = sessions[0]
    assert list(samples[0]) == ["goal", "knowledge", "history", "response"]
    assert samples[0]["history"] == [] and samples[0]["response"] == first["conversation"][0]
    assert samples[1]["history"] == first["conversation"][:2] and samples[1]["response"] == first["conversation"][2]
