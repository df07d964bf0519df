"""The original collection's timeouts, per role (180 s for the wizard's turn, searches included;
120 s for the apprentice's; 180 s for the persona), through the core's turn-timeout hook: the
sweep ends a room idle past the time of the move it waits for, the state frame's countdown and the
instructions say each worker's own. And the campaign settings' checks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from collect.lifecycle.sweep import sweep_run
from collect.models import Assignment, Message, Outcome, Room, RoomStatus
from collect.selectors import room_snapshot, state_for
from collect.tasktypes.woi import APPRENTICE, WIZARD
from collect.tasktypes.woi.config import config_problems
from tests.woi.conftest import WoiRoom, make_campaign, make_room

pytestmark = pytest.mark.django_db


def chatting_after(paired: WoiRoom, messages: int, idle_s: float) -> Room:
    """The room chatting with `messages` sent (the wizard first), idle for `idle_s` seconds."""
    room = paired.room
    for seq in range(1, messages + 1):
        seat = paired.wizard if seq % 2 else paired.apprentice
        Message.objects.create(room=room, seq=seq, sender=seat.assignment, role=seat.assignment.role, client_id=f"c{seq}", text="hi")
    Room.objects.filter(pk=room.pk).update(status=RoomStatus.CHATTING, activity_at=timezone.now() - timedelta(seconds=idle_s))
    return Room.objects.get(pk=room.pk)


def outcomes(paired: WoiRoom) -> dict[str, str]:
    return dict(Assignment.objects.filter(room=paired.room).values_list("role", "outcome"))


def test_the_state_frame_counts_down_the_time_of_the_move_waited_for(paired: WoiRoom) -> None:
    assert room_snapshot(paired.room.pk)["turn_timeout"] == 180  # the apprentice writes the persona
    chatting_after(paired, 0, 0)
    assert room_snapshot(paired.room.pk)["turn_timeout"] == 180  # the wizard opens
    Message.objects.create(room=paired.room, seq=1, sender=paired.wizard.assignment, role=WIZARD, client_id="w", text="hi")
    snapshot = room_snapshot(paired.room.pk)
    assert snapshot["turn_timeout"] == 120  # the apprentice's reply
    assert state_for(snapshot, role=WIZARD, partner_connected=True)["turn_timeout"] == 120


def test_an_apprentice_silent_past_120_s_stalls_the_room(paired: WoiRoom) -> None:
    chatting_after(paired, 1, 119)
    assert sweep_run().rooms_ended == []
    chatting_after(paired, 0, 121)
    assert sweep_run().rooms_ended == [str(paired.room.pk)]
    assert outcomes(paired) == {APPRENTICE: Outcome.STALLED, WIZARD: Outcome.PARTNER_STALLED}


def test_the_wizard_has_180_s_for_a_turn(paired: WoiRoom) -> None:
    chatting_after(paired, 2, 150)  # the wizard's turn: past the apprentice's 120 s, within the wizard's 180 s
    assert sweep_run().rooms_ended == []
    Room.objects.filter(pk=paired.room.pk).update(activity_at=timezone.now() - timedelta(seconds=181))
    assert sweep_run().rooms_ended == [str(paired.room.pk)]
    assert outcomes(paired) == {WIZARD: Outcome.STALLED, APPRENTICE: Outcome.PARTNER_STALLED}


def test_the_campaign_sets_its_own_times(knowledge) -> None:
    campaign = make_campaign(knowledge, slug="woi-fast", wizard_turn_timeout_s=60, apprentice_turn_timeout_s=30, persona_timeout_s=90)
    paired = make_room(campaign)
    assert room_snapshot(paired.room.pk)["turn_timeout"] == 90
    Room.objects.filter(pk=paired.room.pk).update(activity_at=timezone.now() - timedelta(seconds=91))
    assert sweep_run().rooms_ended == [str(paired.room.pk)]
    assert outcomes(paired)[APPRENTICE] == Outcome.STALLED


def test_the_instructions_name_each_workers_own_time(paired: WoiRoom) -> None:
    for seat, limit in ((paired.wizard, "3 minutes"), (paired.apprentice, "2 minutes")):
        client = Client()
        session = client.session
        session["worker_id"] = seat.worker.pk
        session.save()
        page = client.get(f"/room/{paired.room.pk}/").content.decode()
        assert f"reply within {limit} of your partner" in page


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({"wizard_turn_timeout_s": "180"}, "protocol_config.wizard_turn_timeout_s must be a whole number of seconds from 10 to 86400, not '180'"),
        ({"apprentice_turn_timeout_s": 5}, "protocol_config.apprentice_turn_timeout_s must be a whole number of seconds from 10 to 86400, not 5"),
        ({"search": {"backend": "bing"}}, "protocol_config.search.backend must be one of store, http, not 'bing'"),
        ({"search": {"backend": "http"}}, "protocol_config.search.url must be an http:// or https:// address with a host, not ''"),
        ({"search": {"backend": "http", "url": "ftp://search.example/q"}}, "must be an http:// or https:// address with a host, not 'ftp://search.example/q'"),
        ({"search": {"documents": 0}}, "protocol_config.search.documents must be a whole number from 1 to 20, not 0"),
        ({"search": {"timeout_s": 120}}, "protocol_config.search.timeout_s must be a number of seconds from 0.5 to 60, not 120"),
        ({"search": {"url_template": "https://x/{name}"}}, "protocol_config.search.url_template must be a string holding {title}"),
        ({"persona": {"template_share": 2}}, "protocol_config.persona.template_share must be a number from 0 to 1, not 2"),
        ({"persona": {"curated": ["one"]}}, "protocol_config.persona.curated must be a list of at least 3 non-empty strings"),
        ({"search_timeout": 5}, "protocol_config has no setting 'search_timeout'"),
    ],
)
def test_bad_settings_are_named(knowledge, config: dict, problem: str) -> None:
    campaign = make_campaign(knowledge, **config)
    [found] = config_problems(campaign)
    assert problem in found


def test_good_settings_have_no_problems(knowledge) -> None:
    campaign = make_campaign(knowledge, wizard_turn_timeout_s=240, search={"backend": "http", "url": "https://search.example/q", "documents": 7, "timeout_s": 3},
                             persona={"template_share": 0.5, "locations": ["Accra, Ghana"]}, review_words=["lol"])
    assert config_problems(campaign) == []


def test_a_bad_setting_stored_by_other_means_keeps_the_defaults_in_a_live_room(knowledge) -> None:
    campaign = make_campaign(knowledge, slug="woi-bad", persona_timeout_s="soon", search={"backend": "http"})
    paired = make_room(campaign)  # the persona form falls back to the default templates
    assert room_snapshot(paired.room.pk)["turn_timeout"] == 180
    from collect.tasktypes.woi.config import config_for

    assert "protocol_config.persona_timeout_s" in config_for(campaign).search.broken  # its searches fail, saying why
