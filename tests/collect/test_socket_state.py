"""The room socket's state as plain objects: its memory of answers, its sync cursor and its stamp
in the process's heartbeats. No socket, database or event loop needed."""

from __future__ import annotations

from collect.consumers.answers import ANSWERS_KEPT, AnswerMemory
from collect.consumers.cursor import SyncCursor
from collect.lifecycle.heartbeats import Heartbeats, Stamp


def ack(client_id: str) -> dict:
    return {"type": "ack", "client_id": client_id}


def test_it_answers_a_copy_with_the_ack_it_remembered() -> None:
    answers = AnswerMemory()
    answers.remember("c1", ack("c1"))
    assert answers.answer_for("c1") == ack("c1")
    assert answers.answer_for("c2") is None
    assert answers.answer_for(None) is None


def test_it_keeps_nothing_without_a_client_id_or_an_ack() -> None:
    answers = AnswerMemory()
    answers.remember(None, ack("x"))
    answers.remember("c1", None)
    assert len(answers) == 0 and answers.answer_for("c1") is None


def test_it_forgets_the_oldest_beyond_what_it_keeps() -> None:
    answers = AnswerMemory()
    for n in range(ANSWERS_KEPT + 1):
        answers.remember(f"c{n}", ack(f"c{n}"))
    assert len(answers) == ANSWERS_KEPT
    assert answers.answer_for("c0") is None and answers.answer_for(f"c{ANSWERS_KEPT}") is not None


def test_a_frame_answered_again_counts_as_the_newest() -> None:
    answers = AnswerMemory(kept=2)
    answers.remember("a", ack("a"))
    answers.remember("b", ack("b"))
    answers.remember("a", ack("a"))
    answers.remember("c", ack("c"))
    assert answers.answer_for("a") is not None and answers.answer_for("b") is None


def test_a_cursor_has_what_was_sent_and_after_a_sync_everything_up_to_its_base() -> None:
    cursor = SyncCursor()
    cursor.mark_sent(3)
    assert cursor.has(3) and not cursor.has(2)
    cursor.synced_to(2)
    assert not cursor.has(2)  # the base counts only once the page has synced
    cursor.synced = True
    assert cursor.has(1) and cursor.has(2) and cursor.has(3) and not cursor.has(4)
    assert cursor.top() == 3


def test_a_cursor_finds_a_gap_after_its_base() -> None:
    cursor = SyncCursor()
    cursor.synced_to(2)
    cursor.mark_sent(4)
    assert cursor.lacks(4)  # seq 3 never came
    cursor.mark_sent(3)
    assert not cursor.lacks(4)


def test_a_sync_never_moves_the_base_back_and_a_stale_one_is_capped_by_the_room() -> None:
    cursor = SyncCursor()
    assert cursor.synced_to(5) == 5
    assert cursor.synced_to(3) == 5
    cursor.cap(4)  # the room has only 4 messages: the page cannot have the fifth
    assert cursor.base == 4 and cursor.lacks(5)


def test_a_stamp_counts_its_member_once_until_it_is_released() -> None:
    beats = Heartbeats()
    first, second = Stamp(7, beats), Stamp(7, beats)
    beats.opened = lambda member: beats.open.update([member])  # no event loop, no stamping task
    first.hold()
    first.hold()
    second.hold()
    assert beats.open[7] == 2
    first.release()
    first.release()
    assert beats.open[7] == 1
    second.release()
    assert 7 not in beats.open
