"""The server's check of the page's authenticity record: forged, absent and malformed records are
stored as such with the reason, values are clamped, and a message is never refused for them."""

from __future__ import annotations

import pytest

from collect.authenticity.record import MAX_MS, RECORD_VERSION, address_key, record_build

TEXT = "Guitars usually have six strings."


def honest(**changes: object) -> dict:
    record = {
        "v": RECORD_VERSION, "compose_ms": 9000, "typing_ms": 6000, "typed_chars": len(TEXT), "inserted_chars": 0,
        "paste": {}, "hidden_ms": 0, "panel_ms": 9000, "passages": ["Guitar"], "compositions": 0,
    }
    record.update(changes)
    return record


def test_it_keeps_an_honest_record_and_adds_the_servers_measurements() -> None:
    stored = record_build(value=honest(), text=TEXT, address="203.0.113.9")
    assert stored["client_status"] == "ok" and stored["reason"] == ""
    assert stored["client"]["typed_chars"] == len(TEXT) and stored["client"]["passages"] == ["Guitar"]
    assert stored["server"] == {"chars": len(TEXT), "address": address_key("203.0.113.9")}
    assert "203.0.113.9" not in str(stored)


def test_a_loopback_address_is_not_kept() -> None:
    assert record_build(value=honest(), text=TEXT, address="127.0.0.1")["server"]["address"] == ""
    assert record_build(value=honest(), text=TEXT, address="::1")["server"]["address"] == ""


def test_an_absent_record_is_stored_as_absent() -> None:
    stored = record_build(value=None, text=TEXT)
    assert stored["client"] is None and stored["client_status"] == "absent"
    assert stored["reason"] == "the page sent no record" and stored["server"]["chars"] == len(TEXT)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("typed", "the record must be an object"),
        ({"v": 99}, "unknown record version 99"),
        (honest(typing_ms="fast"), "typing_ms must be a number"),
        (honest(typed_chars=True), "typed_chars must be a number"),
        (honest(paste={"clipboard": {"count": 1, "chars": 3}}), "paste must map"),
        (honest(paste={"outside": 4}), "paste.outside must be an object"),
        (honest(passages="Guitar"), "passages must be a list of titles"),
        (honest(typing_ms=60_000, compose_ms=1000), "typing_ms exceeds compose_ms"),
        # Forged: a message the record says was barely typed or pasted at all.
        (honest(typed_chars=0), "0 characters typed or pasted for a message of 33"),
    ],
)
def test_a_malformed_or_forged_record_is_stored_as_invalid_with_the_reason(value: object, reason: str) -> None:
    stored = record_build(value=value, text=TEXT)
    assert stored["client"] is None and stored["client_status"] == "invalid"
    assert stored["reason"].startswith(reason)


def test_values_are_clamped_to_sane_ranges() -> None:
    stored = record_build(
        value=honest(compose_ms=10**15, typing_ms=-5, hidden_ms=10**12, passages=["x" * 500] * 3 + [f"t{i}" for i in range(40)]),
        text=TEXT,
    )
    client = stored["client"]
    assert client["compose_ms"] == MAX_MS and client["typing_ms"] == 0 and client["hidden_ms"] == MAX_MS
    assert len(client["passages"]) == 20 and client["passages"][0] == "x" * 200


def test_paste_sources_are_kept_by_source() -> None:
    stored = record_build(value=honest(typed_chars=0, paste={"knowledge": {"count": 1, "chars": 33}, "outside": {"count": 0, "chars": 0}}), text=TEXT)
    assert stored["client"]["paste"] == {"knowledge": {"count": 1, "chars": 33}}
