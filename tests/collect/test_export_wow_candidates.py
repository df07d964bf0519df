"""`candidate_responses` on the wizard turns of the WoW valid/test files, as the original release has
them: 100 each, the gold response among others drawn from other dialogues of the same file, seeded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from collect.exporters import ExportOptions, export_dataset
from collect.tasktypes.wow.exporter import ALL_DIALOGUES, FILES, TEST_RANDOM, TRAIN
from collect.models import Campaign
from tests.collect.test_export_wow import wow_room
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db
ALL_TEST = dict(holdout_topics=0.0, valid=0.0, test=1.0)  # every dialogue in test_random_split.json


@pytest.fixture
def campaign() -> Campaign:
    return make_campaign(slug="wow-candidates")


def export(tmp_path: Path, name: str, **options: Any) -> tuple[Path, list[str]]:
    result = export_dataset("wow", tmp_path / name, ExportOptions(**options))
    return tmp_path / name, result.notes


def wizard_turns(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(the dialogue's marker, turn) for every wizard turn of a file."""
    dialogues = json.loads(path.read_text(encoding="utf-8"))
    return [(d["dialog"][0]["text"].split()[0], t) for d in dialogues for t in d["dialog"] if "Wizard" in t["speaker"]]


def test_each_wizard_turn_has_the_gold_among_100_from_other_dialogues(tmp_path: Path, campaign: Campaign) -> None:
    for n in range(40):
        wow_room(campaign, marker=f"room{n}", messages=6)  # 3 wizard turns each: 120 responses
    out, notes = export(tmp_path, "out", **ALL_TEST)
    turns = wizard_turns(out / TEST_RANDOM)
    assert len(turns) == 120 and notes == []
    responses = {turn["text"] for _, turn in turns}
    for marker, turn in turns:
        candidates = turn["candidate_responses"]
        assert len(candidates) == 100 and len(set(candidates)) == 100
        # ParlAI's WizardDialogKnowledgeTeacher (--label-type response): labels = [text] among label_candidates.
        assert candidates.count(turn["text"]) == 1
        others = [c for c in candidates if c != turn["text"]]
        assert all(c in responses and not c.startswith(f"{marker} ") for c in others)
    positions = {turn["candidate_responses"].index(turn["text"]) for _, turn in turns}
    assert len(positions) > 20  # the gold is not always in one place
    apprentice = [t for d in json.loads((out / TEST_RANDOM).read_text()) for t in d["dialog"] if "Apprentice" in t["speaker"]]
    assert apprentice and not any("candidate_responses" in t for t in apprentice)
    # Reproducible: the same seed writes the same bytes; another seed draws others.
    again, _ = export(tmp_path, "again", **ALL_TEST)
    assert (again / TEST_RANDOM).read_bytes() == (out / TEST_RANDOM).read_bytes()
    other, _ = export(tmp_path, "other", seed=1, **ALL_TEST)
    assert wizard_turns(other / TEST_RANDOM) != turns


def test_train_has_none_and_a_small_file_says_it_is_short(tmp_path: Path, campaign: Campaign) -> None:
    for n in range(3):
        wow_room(campaign, marker=f"room{n}", messages=4)
    out, _ = export(tmp_path, "train", holdout_topics=0.0, valid=0.0, test=0.0)
    assert all("candidate_responses" not in turn for _, turn in wizard_turns(out / TRAIN))
    out, notes = export(tmp_path, "test", **ALL_TEST)
    turns = wizard_turns(out / TEST_RANDOM)
    assert [len(turn["candidate_responses"]) for _, turn in turns] == [5] * 6  # the gold + 4 from the 2 other rooms
    assert notes == [f"{TEST_RANDOM}: 6 wizard turn(s) have fewer than 100 candidate_responses "
                     "(fewer than 99 other distinct wizard responses in that file)"]


def test_data_json_holds_every_dialogue_without_candidates(tmp_path: Path, campaign: Campaign) -> None:
    for n in range(6):
        wow_room(campaign, marker=f"room{n}", messages=4)
    out, _ = export(tmp_path, "out", holdout_topics=0.0, valid=0.5, test=0.5)
    splits = [d for name in FILES for d in json.loads((out / name).read_text())]
    everything = json.loads((out / ALL_DIALOGUES).read_text())
    for d in splits:
        for turn in d["dialog"]:
            turn.pop("candidate_responses", None)
    assert sorted(everything, key=json.dumps) == sorted(splits, key=json.dumps) and len(everything) == 6
