"""A live groundwork.serve: its access log holds no join-link signature, in either log format; its
/metrics adds up what other processes recorded in the same PROMETHEUS_MULTIPROC_DIR."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import websockets

from collect.lifecycle.links import join_link, link_signature
from collect.models import Assignment, AssignmentStatus, Campaign, Message, Worker
from groundwork import metrics_scrape
from tests.collect.conftest import session_cookie
from tests.observability.live import ROOT, child_env, served
from tests.observability.scraping import parse, value

# The scrape's processes may take their own 300 s.
pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]


def wait_for(predicate, what: str, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while not (result := predicate()):
        assert time.monotonic() < deadline, f"{what} within {seconds:g} s"
        time.sleep(0.1)
    return result


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_join_through_a_live_server_leaves_no_signature_in_its_logs(campaign: Campaign, index_dir: Path, tmp_path: Path, log_format: str) -> None:
    signature = link_signature(campaign_slug=campaign.slug, worker="w-logs")
    env = child_env(index_dir, GROUNDWORK_LOG_FORMAT=log_format, GROUNDWORK_UNSIGNED_LINKS="0")
    with served(env, tmp_path) as server:
        link = join_link(base=server.base, campaign_slug=campaign.slug, worker="w-logs")
        assert f"sig={signature}" in link
        status, _ = server.get(link.removeprefix(server.base))
        assert status == 302, _
        assert Worker.objects.filter(external_id="w-logs").exists()  # the link was accepted
        line = wait_for(lambda: next((l for l in server.output().splitlines() if f"/join/{campaign.slug}/" in l), None),
                        "an access-log line for the join")
        output = server.output()
    assert signature not in output
    assert "sig=[redacted]" in line and "worker=w-logs" in line
    if log_format == "json":
        entry = json.loads(line)
        assert entry["logger"] == "groundwork.access" and entry["method"] == "GET" and entry["status"] == status
        assert entry["path"] == f"/join/{campaign.slug}/?worker=w-logs&sig=[redacted]"
    else:
        assert f'"GET /join/{campaign.slug}/?worker=w-logs&sig=[redacted]" {status}' in line


async def _open_waiting_socket(port: int, assignment_id: int, cookie: bytes):
    socket = await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/wait/{assignment_id}/", origin="http://127.0.0.1", additional_headers={"Cookie": cookie.decode()},
        open_timeout=30, close_timeout=2,
    )
    frame = json.loads(await asyncio.wait_for(socket.recv(), 30))
    assert frame["type"] == "waiting", frame
    return socket


def test_one_scrape_adds_up_every_process(campaign: Campaign, index_dir: Path, tmp_path: Path, settings) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    env = child_env(index_dir, PROMETHEUS_MULTIPROC_DIR=str(metrics_dir))
    # Another process: two scripted workers chat through a room of their own, then it exits.
    simulated = subprocess.run(
        [sys.executable, "manage.py", "simulate", "wow", "--dialogues", "1"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=300,
    )
    assert simulated.returncode == 0, simulated.stderr[-3000:]
    stored = Message.objects.filter(room__campaign=campaign).count()
    assert stored == 4

    erin = Worker.objects.create(platform="inhouse", external_id="erin")
    waiting = Assignment.objects.create(campaign=campaign, worker=erin, status=AssignmentStatus.WAITING)
    with served(env, tmp_path) as server:
        loop = asyncio.new_event_loop()
        try:
            socket = loop.run_until_complete(_open_waiting_socket(server.port, waiting.pk, session_cookie(erin)))
            status, text = server.get("/metrics")
            assert status == 200, text
            samples = parse(text)
            # Recorded by the simulation's process, which has exited: its counters stay.
            assert value(samples, "groundwork_messages_total", protocol="wow") == stored
            assert value(samples, "groundwork_ack_seconds_count") == stored
            assert value(samples, "groundwork_knowledge_panel_seconds_count", protocol="wow") == 2
            # Recorded by both: the simulation's two waiting sockets and the server's one.
            assert value(samples, "groundwork_sockets_opened_total", kind="waiting") == 3
            # Open now: only the server's.
            assert value(samples, "groundwork_sockets_open", kind="waiting") == 1
            assert value(samples, "groundwork_sockets_open", kind="room") == 0
            assert value(samples, "groundwork_rooms", status="complete") == 1
            assert value(samples, "groundwork_outcomes", campaign=campaign.slug, outcome="completed") == 2
            # The server dies with the socket open: its open socket is not counted any more, what it
            # counted before stays.
            server.process.kill()
            server.process.wait()
        finally:
            loop.run_until_complete(socket.close()) if "socket" in locals() else None
            loop.close()
    settings.PROMETHEUS_MULTIPROC_DIR = str(metrics_dir)
    after = parse(metrics_scrape.scrape().decode())
    assert value(after, "groundwork_sockets_open", kind="waiting") == 0
    assert value(after, "groundwork_sockets_opened_total", kind="waiting") == 3
    assert value(after, "groundwork_messages_total", protocol="wow") == stored
