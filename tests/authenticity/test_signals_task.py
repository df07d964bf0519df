"""The Celery task that computes an ended room's signals: on the `index` queue (never in line with
the retrievals on `default`), quiet about a room of another database behind the same broker, and
retrying a lost database as a retrieval does, with no traceback in the worker's log."""

from __future__ import annotations

import logging
import uuid

import pytest
from celery.exceptions import Retry
from django.db import OperationalError

from collect import tasks
from collect.tasks import RETRIES, authenticity_signals
from groundwork.celery import app

pytestmark = [pytest.mark.backends, pytest.mark.django_db]


def test_it_is_routed_to_the_index_queue_not_to_the_retrievals() -> None:
    assert app.amqp.router.route({}, authenticity_signals.name)["queue"].name == "index"
    assert app.amqp.router.route({}, tasks.messages_knowledge.name)["queue"].name == "default"


def test_a_room_of_another_database_is_nothing_to_do(caplog) -> None:
    with caplog.at_level(logging.INFO, logger="collect.tasks"):
        assert authenticity_signals.apply(args=(str(uuid.uuid4()),)).get() == 0
    assert [r for r in caplog.records if r.exc_info] == []


def test_a_lost_database_is_retried_then_logged_in_one_line(monkeypatch, caplog) -> None:
    calls = []

    def lost(*, room_id):
        calls.append(room_id)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("collect.authenticity.signals.room_signals_compute", lost)
    with pytest.raises(Retry):
        authenticity_signals.apply(args=("room",), throw=True)
    assert len(calls) == 2  # retried_once: once more on a new connection before the task retries
    with caplog.at_level(logging.WARNING, logger="collect.tasks"):
        assert authenticity_signals.apply(args=("room",), retries=RETRIES).get() == 0
    assert [r for r in caplog.records if r.exc_info] == []
    assert any("lost their database" in r.getMessage() for r in caplog.records)
