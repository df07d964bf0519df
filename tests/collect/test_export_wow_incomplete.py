"""`export_dataset wow --include-incomplete`: a dialogue that ended early says so with its own keys
(`incomplete`, `end_reason`), which WoW's loaders do not read; complete dialogues keep exactly the
original keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from collect.models import Campaign, Room, RoomStatus
from tests.collect.test_export_wow import everything, export, marker_of, wow_campaign, wow_room  # noqa: F401

WOW_KEYS = {"chosen_topic", "persona", "wizard_eval", "chosen_topic_passage", "dialog"}


@pytest.mark.django_db
def test_an_incomplete_dialogue_carries_an_explicit_flag(tmp_path: Path, wow_campaign: Campaign) -> None:  # noqa: F811
    wow_room(wow_campaign, marker="done", rating=5)
    cut = wow_room(wow_campaign, marker="cut", status=RoomStatus.INCOMPLETE, rating=None)
    Room.objects.filter(pk=cut.pk).update(end_reason="the apprentice left")

    dialogues = {marker_of(d): d for d in everything(export(tmp_path, "all", include_incomplete=True))}
    assert set(dialogues["done"]) == WOW_KEYS
    assert dialogues["cut"]["incomplete"] is True
    assert dialogues["cut"]["end_reason"] == "the apprentice left"
    assert set(dialogues["cut"]) == WOW_KEYS | {"incomplete", "end_reason"}
    assert dialogues["cut"]["wizard_eval"] == -1
    # Without the option, nothing carries the extra keys.
    assert all(set(d) == WOW_KEYS for d in everything(export(tmp_path, "complete")))
