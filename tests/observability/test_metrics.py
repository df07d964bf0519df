"""/metrics in one process (the embedded mode): what a simulated campaign did, counted by the code
that did it and read from the database at scrape, parsed with Prometheus's own parser; and who
may read it."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from collect.lifecycle.sweep import sweep_run
from collect.authenticity.signals import signals_owed
from collect.models_authenticity import AuthenticityFlag, FlagKind
from collect.models import Assignment, AssignmentStatus, Campaign, Message, Room, RoomStatus, Worker
from collect.ratelimit import rate_check
from groundwork.proxies import networks_parse
from tests.observability.scraping import names, parse, value

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

TOKEN = "metrics-test-token-0123456789abcdef"


def scrape(client: Client, **extra: str) -> list:
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return parse(response.content.decode())


def test_it_counts_what_a_simulated_campaign_did(campaign: Campaign, client: Client) -> None:
    before = scrape(client)
    call_command("simulate", "wow", dialogues=3, concurrency=2, stdout=io.StringIO())
    # The rooms' authenticity signals: computed at their end in the embedded pass; with a broker
    # their task waits for an `index` worker this test does not run, so computed as review does.
    signals_owed(campaign_id=campaign.pk)
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    stored = Message.objects.filter(room__campaign=campaign).count()
    assert stored == 12  # 3 dialogues of 2 turns each per worker
    assert delta("groundwork_messages_total", protocol="wow") == stored
    # Every message was acknowledged to its sender and delivered to the partner's one socket.
    assert delta("groundwork_ack_seconds_count") == stored
    assert delta("groundwork_delivery_seconds_count") == stored
    assert delta("groundwork_ack_seconds_sum") > 0
    # Every utterance was retrieved for; the wizard got a panel after each of the apprentice's turns.
    assert delta("groundwork_retrieval_seconds_count") >= stored
    apprentice_turns = Message.objects.filter(room__campaign=campaign, role="apprentice").count()
    assert delta("groundwork_knowledge_panel_seconds_count", protocol="wow") == apprentice_turns == 6
    # Two waiting-room and two room sockets per dialogue, all closed again.
    assert delta("groundwork_sockets_opened_total", kind="waiting") == 6
    assert delta("groundwork_sockets_opened_total", kind="room") == 6
    assert value(after, "groundwork_sockets_open", kind="room") == value(before, "groundwork_sockets_open", kind="room")

    # Counted in the database at scrape: every status, and every ended assignment by outcome.
    for status in RoomStatus.values:
        assert value(after, "groundwork_rooms", status=status) == Room.objects.filter(status=status).count()
    assert value(after, "groundwork_rooms", status="complete") == 3
    assert value(after, "groundwork_outcomes", campaign="wow-test", outcome="completed") == 6
    assert value(after, "groundwork_outcomes") == Assignment.objects.exclude(outcome="").count()
    # Authenticity flags by kind: the scripted workers' frames carry no record from a page.
    for kind in FlagKind.values:
        assert value(after, "groundwork_authenticity_flags", kind=kind) == AuthenticityFlag.objects.filter(kind=kind).count()
    assert value(after, "groundwork_authenticity_flags", kind="record_missing") > 0
    assert value(after, "groundwork_scrape_source_up", source="database") == 1
    # No broker in this test's settings or none read here: no queue depths are made up.
    assert "groundwork_celery_queue_length" not in names(after) or value(after, "groundwork_scrape_source_up", source="broker") == 1


def test_sweeps_and_their_endings_are_counted(campaign: Campaign, client: Client) -> None:
    worker = Worker.objects.create(platform="inhouse", external_id="dave")
    waiting = Assignment.objects.create(campaign=campaign, worker=worker, status=AssignmentStatus.WAITING)
    Assignment.objects.filter(pk=waiting.pk).update(created=timezone.now() - timedelta(seconds=campaign.wait_timeout_seconds + 5))
    before = scrape(client)
    result = sweep_run()
    after = scrape(client)
    assert result.waits_ended == [waiting.pk]
    assert value(after, "groundwork_sweeps_total") - value(before, "groundwork_sweeps_total") == 1
    assert value(after, "groundwork_sweep_ended_total", what="waits") - value(before, "groundwork_sweep_ended_total", what="waits") == 1
    assert value(after, "groundwork_sweep_seconds_count") - value(before, "groundwork_sweep_seconds_count") == 1
    assert value(after, "groundwork_outcomes", campaign="wow-test", outcome="no_partner") == 1


def test_rate_limit_refusals_are_counted_by_rule(settings, client: Client) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "joins": {"ip": (1, 60)}}
    before = scrape(client)
    assert rate_check("joins", ip="192.0.2.7") is None
    assert rate_check("joins", ip="192.0.2.7") is not None
    assert rate_check("joins", ip="192.0.2.7") is not None
    after = scrape(client)
    assert value(after, "groundwork_rate_limited_total", rule="joins", who="ip") - value(before, "groundwork_rate_limited_total", rule="joins", who="ip") == 2


def test_model_calls_are_timed_and_failures_counted_by_model(client: Client) -> None:
    from collect.tasktypes.modelchat.calls import APOLOGY, model_respond
    from collect.tasktypes.modelchat.models import EvalModel

    good = EvalModel.objects.create(name="no-knowledge", dotted_path="collect.tasktypes.modelchat.bots.NoKnowledgeBot")
    broken = EvalModel.objects.create(name="broken", dotted_path="collect.tasktypes.modelchat.bots.NoSuchBot", retries=0)
    before = scrape(client)
    assert model_respond(model=good, context={"history": ["hi"], "topic": "Tea", "knowledge": []}).error == ""
    assert model_respond(model=broken, context={"history": ["hi"], "topic": "Tea", "knowledge": []}).text == APOLOGY
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("groundwork_model_call_seconds_count", model="no-knowledge") == 1
    assert delta("groundwork_model_call_failures_total", model="no-knowledge") == 0
    assert delta("groundwork_model_call_seconds_count", model="broken") == 1
    assert delta("groundwork_model_call_failures_total", model="broken") == 1


# --- who may read it
def test_another_address_is_refused(client: Client) -> None:
    response = client.get("/metrics", REMOTE_ADDR="203.0.113.9")
    assert response.status_code == 403
    assert b"GROUNDWORK_METRICS_ALLOW" in response.content and b"groundwork_" not in response.content


def test_a_configured_network_may_read(settings, client: Client) -> None:
    settings.METRICS_ALLOW = networks_parse(["10.0.0.0/8"], name="GROUNDWORK_METRICS_ALLOW")
    assert client.get("/metrics", REMOTE_ADDR="10.20.30.40").status_code == 200
    # Loopback is no longer in the list.
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403


def test_the_bearer_token_opens_it_from_anywhere(settings, client: Client) -> None:
    settings.METRICS_ALLOW = ()
    settings.METRICS_TOKEN = TOKEN
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9", HTTP_AUTHORIZATION=f"Bearer {TOKEN}x").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9", HTTP_AUTHORIZATION=f"Basic {TOKEN}").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403


def test_no_token_is_no_way_in(settings, client: Client) -> None:
    settings.METRICS_ALLOW = ()
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_AUTHORIZATION="Bearer ").status_code == 403


def test_only_get_is_answered(client: Client) -> None:
    assert client.post("/metrics").status_code == 405


def test_a_bad_address_in_the_setting_stops_the_process() -> None:
    with pytest.raises(ImproperlyConfigured, match="GROUNDWORK_METRICS_ALLOW: 'localhost' is not an IP address"):
        networks_parse(["127.0.0.1", "localhost"], name="GROUNDWORK_METRICS_ALLOW")
    assert networks_parse(["::ffff:0:0/96", "192.168.0.1"], name="X")[1].num_addresses == 1
