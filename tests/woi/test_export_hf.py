"""Wizard of Internet's Hugging Face export of the released-format sample: `load_dataset` reads it
offline, its rows are the JSON Lines export's (keys without a column included), and its figures
equal those counted here."""

from __future__ import annotations

import io
import json
from pathlib import Path

import datasets
import huggingface_hub
import pytest
from django.core.management import call_command

from collect.exporters import ExportOptions
from collect.exporters.hf import export_hf
from collect.tasktypes.woi.hf import FEATURES, dialogue_from_row
from tests.woi.released import sample_dialogues
from tests.hf_card import assert_valid_card

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


def test_the_sample_exports_loads_and_counts(tmp_path: Path) -> None:
    lines = sample_dialogues()
    history = lines[0]["2_a3f9c0d1"]["dialog_history"]
    history[0] = {**history[0], "timestamp": 1625306584.5}  # a key the format has no column for
    path = tmp_path / "valid.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    call_command("import_dataset", "woi", str(path), "--campaign", "woi-sample", stdout=io.StringIO())
    out = tmp_path / "hf"
    assert export_hf("woi", out, ExportOptions()).counts == {"woi/valid": 2}

    assert_valid_card(out)
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["valid"] and loaded["valid"].features == FEATURES
    assert [dialogue_from_row(row) for row in loaded["valid"]] == lines

    figures = {f["name"]: f for f in json.loads((out / "conformance.json").read_text(encoding="utf-8"))}
    dialogues = [d for line in lines for d in line.values()]
    actions = [[e["action"] for e in d["dialog_history"]] for d in dialogues]
    talk = ("Apprentice => Wizard", "Wizard => Apprentice")
    assert figures["dialogues"]["pilot"] == 2
    assert figures["turns per dialogue"]["pilot"] == pytest.approx(sum(sum(a in talk for a in acts) for acts in actions) / 2)
    assert figures["searches per dialogue"]["pilot"] == pytest.approx(sum(acts.count("Wizard => SearchAgent") for acts in actions) / 2) == 2
    replies = [e for d in dialogues for e in d["dialog_history"] if e["action"] == "Wizard => Apprentice"]
    used = [e for e in replies if any(any(row) for row in e["context"]["selected_contents"][1:])]
    assert figures["share of wizard replies using a found sentence"]["pilot"] == pytest.approx(len(used) / len(replies))
    assert all(f["published"] is None for f in figures.values())

