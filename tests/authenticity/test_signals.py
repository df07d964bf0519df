"""The authenticity signals on constructed turns: each cheat is flagged with its evidence, the
honest typist is not, and computing twice stores the flags once."""

from __future__ import annotations

import pytest

from collect.authenticity.record import record_build
from collect.authenticity.signals import checked_unused, room_signals_compute, signals_owed
from collect.models import Message, RoomStatus
from collect.models_authenticity import AuthenticityFlag, SignalsRun
from tests.factories import TOPIC_PASSAGE, add_message, make_campaign, make_room, make_worker

pytestmark = pytest.mark.django_db

OWN_WORDS = "I read a lot of novels about robots and distant planets."


def record(text: str, *, address: str = "198.51.100.7", **client: object) -> dict:
    value = {"v": 1, "compose_ms": 20_000, "typing_ms": 9_000, "typed_chars": len(text), "inserted_chars": 0,
             "paste": {}, "hidden_ms": 0, "panel_ms": 20_000, "passages": [], "compositions": 0}
    value.update(client)
    return record_build(value=value, text=text, address=address)


def say(room, role: str, text: str, authenticity: dict | None) -> Message:
    message = add_message(room, role, text)
    Message.objects.filter(pk=message.pk).update(authenticity=authenticity)
    return message


def kinds(room) -> dict[tuple[str, int | None], dict]:
    return {(f.kind, f.seq): f.evidence for f in AuthenticityFlag.objects.filter(room=room)}


def test_an_honest_typist_gets_no_flag() -> None:
    room = make_room(make_campaign())
    say(room, "wizard", OWN_WORDS, record(OWN_WORDS))
    say(room, "apprentice", "Which one did you like the most?", record("Which one did you like the most?", address="203.0.113.2"))
    assert room_signals_compute(room_id=room.pk) == []
    assert SignalsRun.objects.filter(room=room).exists()


def test_each_cheat_is_flagged_with_its_evidence() -> None:
    room = make_room(make_campaign())
    copied = f"Well. {TOPIC_PASSAGE[0]}"
    say(room, "wizard", copied, record(copied, typed_chars=6, paste={"knowledge": {"count": 1, "chars": len(TOPIC_PASSAGE[0])}}))
    llm = "Absolutely! Robots in fiction often explore what it means to be human."
    say(room, "apprentice", llm, record(llm, typed_chars=0, paste={"outside": {"count": 1, "chars": len(llm)}}))
    fast = "I typed this whole sentence far faster than anyone can."
    say(room, "wizard", fast, record(fast, typing_ms=1_300))
    say(room, "apprentice", "no record here", None)
    found = kinds(room) if room_signals_compute(room_id=room.pk) else {}
    assert found[("knowledge_copy", 1)]["sentence"] == TOPIC_PASSAGE[0]
    assert found[("paste_outside", 2)] == {"pasted_chars": len(llm), "pastes": 1, "message_chars": len(llm)}
    assert found[("typing_speed", 3)]["chars_per_second"] == round(len(fast) / 1.3, 1)
    assert found[("record_missing", 4)]["status"] == "absent"
    assert ("typing_speed", 1) not in found and ("paste_outside", 1) not in found


def test_the_typing_speed_threshold_is_a_setting(settings) -> None:
    room = make_room(make_campaign())
    fast = "I typed this whole sentence far faster than anyone can."
    say(room, "wizard", fast, record(fast, typing_ms=1_300))
    settings.AUTHENTICITY_MAX_CHARS_PER_SECOND = 60.0
    assert room_signals_compute(room_id=room.pk) == []


def test_the_same_text_in_another_dialogue_is_flagged() -> None:
    campaign, worker = make_campaign(), make_worker()
    first, second = make_room(campaign, wizard=worker), make_room(campaign, wizard=worker)
    say(first, "wizard", OWN_WORDS, record(OWN_WORDS))
    say(second, "wizard", OWN_WORDS.upper(), record(OWN_WORDS))
    room_signals_compute(room_id=second.pk)
    assert kinds(second)[("repeated_text", 1)] == {"other_room": str(first.pk), "other_seq": 1}


def test_several_worker_ids_from_one_browser_or_address_are_flagged() -> None:
    campaign = make_campaign()
    one, two = make_worker(browser="b" * 64), make_worker(browser="b" * 64)
    first, second = make_room(campaign, wizard=one), make_room(campaign, wizard=two)
    say(first, "wizard", OWN_WORDS, record(OWN_WORDS))
    say(second, "wizard", "Something else entirely, in other words.", record("Something else entirely, in other words."))
    room_signals_compute(room_id=second.pk)
    found = kinds(second)
    assert found[("shared_browser", None)] == {"other_workers": [one.pseudonym]}
    assert found[("shared_address", None)]["other_workers"] == [one.pseudonym]


def test_a_first_worker_id_whose_room_was_computed_before_the_second_existed_is_flagged_with_it() -> None:
    """One person, two ids one after the other (the entry refuses a browser still in a chat): the
    first room's signals are computed when it ends, before the second id exists."""
    campaign = make_campaign()
    one = make_worker(browser="c" * 64)
    first = make_room(campaign, wizard=one)
    say(first, "wizard", OWN_WORDS, record(OWN_WORDS))
    room_signals_compute(room_id=first.pk)
    assert ("shared_browser", None) not in kinds(first)
    two = make_worker(browser="c" * 64)
    second = make_room(campaign, wizard=two)
    say(second, "wizard", "Something else entirely, in other words.", record("Something else entirely, in other words."))
    room_signals_compute(room_id=second.pk)
    found = kinds(first)
    assert found[("shared_browser", None)] == {"other_workers": [two.pseudonym]}
    assert found[("shared_address", None)]["other_workers"] == [two.pseudonym]
    # Computing either room again stores each flag once.
    room_signals_compute(room_id=second.pk)
    room_signals_compute(room_id=first.pk)
    assert AuthenticityFlag.objects.filter(room=first, kind="shared_browser").count() == 1
    assert AuthenticityFlag.objects.filter(room=second, kind="shared_browser").count() == 1


def test_computing_twice_stores_the_flags_once_and_the_review_computes_what_is_owed() -> None:
    room = make_room(make_campaign(), status=RoomStatus.COMPLETE)
    say(room, "wizard", "no record", None)
    assert signals_owed(campaign_id=room.campaign_id) == 1
    assert signals_owed(campaign_id=room.campaign_id) == 0
    room_signals_compute(room_id=room.pk)
    assert AuthenticityFlag.objects.filter(room=room).count() == 1


def test_a_checked_sentence_the_reply_does_not_use_is_flagged_and_a_paraphrase_is_not() -> None:
    room = make_room(make_campaign())
    checked = {"partner_0_Science fiction": TOPIC_PASSAGE[2]}
    unused = "I mostly read mystery novels on the train home."
    paraphrase = "Space exploring and travelling through time are its classic examples, I think."
    say(room, "wizard", unused, record(unused))
    Message.objects.filter(room=room, seq=1).update(checked_sentence=checked)
    say(room, "apprentice", "Which one do you like?", record("Which one do you like?", address="203.0.113.2"))
    say(room, "wizard", paraphrase, record(paraphrase))
    Message.objects.filter(room=room, seq=3).update(checked_sentence=checked)
    say(room, "apprentice", "Nice.", record("Nice.", address="203.0.113.2"))
    say(room, "wizard", unused + " Really.", record(unused + " Really."))
    Message.objects.filter(room=room, seq=5).update(checked_sentence={"no_passages_used": "no_passages_used"})
    room_signals_compute(room_id=room.pk)
    assert kinds(room) == {("checked_unused", 1): {"sentence": TOPIC_PASSAGE[2], "sentence_terms": 9}}


@pytest.mark.parametrize(("reply", "flagged"), [("我很喜欢周星驰的电影。", False), ("今天天气很好，我们去公园吧。", True)])
def test_checked_unused_reads_chinese_by_its_words(reply: str, flagged: bool) -> None:
    message = Message(text=reply, checked_sentence={"周星驰": "周星驰是香港著名的喜剧演员和导演。"})
    assert (checked_unused(message, language="zh") is not None) is flagged
