"""The review page's Wizard of Internet checks: how often the wizard used a selected sentence, the
overlap with it, pastes, and a wizard who never searched or never selected anything (the original
collection's reasons to disqualify a wizard)."""

from __future__ import annotations

import pytest

from collect.models import Message, RoomStatus
from collect.review.checks import room_checks
from collect.tasktypes.woi.models import SearchStatus, WoiSearch, WoiTurn
from tests.woi.conftest import WoiRoom

pytestmark = pytest.mark.django_db

DOCUMENTS = [{"content": ["Mount Fuji is the highest mountain in Japan and an active volcano.", "It last erupted in 1707."], "url": "u", "title": "Mount Fuji"}]


def reply(paired: WoiRoom, seq: int, text: str, *, search: WoiSearch | None, used: list[int]) -> None:
    Message.objects.create(room=paired.room, seq=seq, sender=paired.wizard.assignment, role="wizard", client_id=f"w{seq}", text=text)
    selected = [[not used]] + [[i in used for i in range(len(d["content"]))] for d in (search.documents if search else [])]
    WoiTurn.objects.create(room=paired.room, seq=seq, search=search, selected=selected)


def test_a_wizard_who_searched_and_used_the_results(paired: WoiRoom) -> None:
    paired.room.status = RoomStatus.COMPLETE
    search = WoiSearch.objects.create(room=paired.room, after_seq=0, query="fuji", status=SearchStatus.DONE, documents=DOCUMENTS)
    reply(paired, 1, "Mount Fuji is the highest mountain in Japan and an active volcano.", search=search, used=[0])
    Message.objects.create(room=paired.room, seq=2, sender=paired.apprentice.assignment, role="apprentice", client_id="a", text="Wow, really?")
    reply(paired, 3, "Yes, and people climb it every summer!", search=None, used=[])
    checks = room_checks(paired.room)
    assert checks.checked_share == 0.5 and checks.pasted == 1 and checks.overlap == 1.0
    assert "wizard never searched" not in checks.flags and "1 message(s) pasted from the knowledge" in checks.flags


def test_a_wizard_who_never_searched_or_never_selected_is_flagged(paired: WoiRoom) -> None:
    reply(paired, 1, "Hello there, how are you today?", search=None, used=[])
    assert "wizard never searched" in room_checks(paired.room).flags
    WoiSearch.objects.create(room=paired.room, after_seq=0, query="fuji", status=SearchStatus.DONE, documents=DOCUMENTS)
    flags = room_checks(paired.room).flags
    assert "wizard never selected a search result" in flags and "wizard never searched" not in flags
