"""Rate limits shared by all connections (and, with Redis, all processes): frames, new sockets,
joins and API calls, per worker and per IP. Limits are set low here; the defaults are in settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from collect.models import Worker
from groundwork.asgi import application
from tests.annotate.conftest import Api, make_job, people  # noqa: F401
from tests.collect.conftest import PairedRoom
from tests.collect.ws import ORIGIN, receive_until, send

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parents[2]
AWAY = "203.0.113.7"  # a documentation address: not loopback, so IP limits apply
# Windows are fixed; one this long never ends during a test, so counts cannot reset halfway.
LONG = 10**9


def limits(settings, **rules: dict[str, tuple[int, int]]) -> None:
    settings.RATE_LIMITS = {"frames": {}, "sockets": {}, "joins": {}, "api": {}, **rules}


async def open_socket(path: str, cookie: bytes | None, ip: str = AWAY) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie)] if cookie else [])
    communicator = WebsocketCommunicator(application, path, headers=headers)
    communicator.scope["client"] = (ip, 50000)
    connected, _ = await communicator.connect(timeout=10)  # a loaded machine may take seconds
    assert connected
    return communicator


async def room_socket(paired: PairedRoom, seat, ip: str = AWAY) -> WebsocketCommunicator:
    communicator = await open_socket(f"/ws/room/{paired.room.id}/", seat.cookie, ip)
    await receive_until(communicator, "state")
    return communicator


@pytest.mark.django_db(transaction=True)
async def test_frames_are_counted_per_worker_over_all_their_sockets(paired: PairedRoom, settings) -> None:
    limits(settings, frames={"worker": (5, LONG)})
    sockets = [await room_socket(paired, paired.apprentice) for _ in range(3)]
    for i in range(5):
        await send(sockets[i % 3], {"type": "ping"})
        assert (await receive_until(sockets[i % 3], "pong"))["type"] == "pong"
    await send(sockets[2], {"type": "ping"})
    error = await receive_until(sockets[2], "error")
    assert error["code"] == "rate_limited"
    assert "at most 5 per %d s from this worker" % LONG in error["message"]
    # The partner has their own budget; the limited socket is still open for later.
    wizard = await room_socket(paired, paired.wizard)
    await send(wizard, {"type": "ping"})
    assert (await receive_until(wizard, "pong"))["type"] == "pong"
    for communicator in (*sockets, wizard):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_frames_are_counted_per_ip_over_workers(paired: PairedRoom, settings) -> None:
    limits(settings, frames={"ip": (3, LONG)})
    wizard, apprentice = await room_socket(paired, paired.wizard), await room_socket(paired, paired.apprentice)
    for communicator in (wizard, apprentice, wizard):
        await send(communicator, {"type": "ping"})
        await receive_until(communicator, "pong")
    await send(apprentice, {"type": "ping"})
    error = await receive_until(apprentice, "error")
    assert error["code"] == "rate_limited" and "from this network address" in error["message"]
    # Another address is not held back by this one.
    other = await room_socket(paired, paired.apprentice, ip="198.51.100.9")
    await send(other, {"type": "ping"})
    assert (await receive_until(other, "pong"))["type"] == "pong"
    for communicator in (wizard, apprentice, other):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_loopback_is_exempt_from_ip_limits(paired: PairedRoom, settings) -> None:
    limits(settings, frames={"ip": (1, LONG)})
    local = await room_socket(paired, paired.apprentice, ip="127.0.0.1")
    for _ in range(3):
        await send(local, {"type": "ping"})
        await receive_until(local, "pong")
    await local.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_new_sockets_past_the_limit_are_told_and_closed(paired: PairedRoom, settings) -> None:
    limits(settings, sockets={"worker": (2, LONG)})
    first, second = await room_socket(paired, paired.apprentice), await room_socket(paired, paired.apprentice)
    third = await open_socket(f"/ws/room/{paired.room.id}/", paired.apprentice.cookie)
    error = await third.receive_json_from()
    assert error["code"] == "rate_limited" and "new connections" in error["message"]
    assert (await third.receive_output())["code"] == 4504  # try_later: the page reconnects after a wait
    for communicator in (first, second):
        await communicator.disconnect()


def test_joins_past_the_limit_get_429_and_create_nothing(db, settings, campaign) -> None:
    limits(settings, joins={"ip": (2, LONG)})
    # Three browsers behind one address (one browser is bound to the first worker who used it).
    for name in ("w1", "w2"):
        assert Client(REMOTE_ADDR=AWAY).get(f"/join/{campaign.slug}/", {"worker": name}).status_code == 302
    response = Client(REMOTE_ADDR=AWAY).get(f"/join/{campaign.slug}/", {"worker": "w3"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert "Too many joins" in response.content.decode()
    assert not Worker.objects.filter(external_id="w3").exists()


def test_api_calls_past_the_limit_get_429_rate_limited(db, settings, people) -> None:  # noqa: F811
    limits(settings, api={"worker": (3, LONG)})
    job = make_job("relevance", items=1)
    alice = Api(Client(REMOTE_ADDR=AWAY), people.alice)
    for _ in range(3):
        assert alice.next(job).status_code == 200
    refused = alice.next(job)
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate_limited"
    assert "at most 3 per %d s from this worker" % LONG in refused.json()["detail"]
    assert int(refused["Retry-After"]) >= 1
    assert Api(Client(REMOTE_ADDR=AWAY), people.bob).next(job).status_code == 200


def test_api_joins_count_against_the_join_limit(db, settings) -> None:
    limits(settings, joins={"ip": (1, LONG)})
    job = make_job("relevance", items=1)
    client = Client(REMOTE_ADDR=AWAY)
    url = f"/api/annotate/jobs/{job.slug}/join/"
    assert client.post(url, {"worker": "ann1"}, content_type="application/json").status_code == 200
    refused = client.post(url, {"worker": "ann2"}, content_type="application/json")
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"


def test_a_bad_limit_setting_names_the_variable(monkeypatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from groundwork.env import env_rates

    monkeypatch.setenv("GROUNDWORK_RATE_LIMITS", "frames.worker=ten/10")
    with pytest.raises(ImproperlyConfigured, match="GROUNDWORK_RATE_LIMITS"):
        env_rates("GROUNDWORK_RATE_LIMITS", {"frames": {}})
    monkeypatch.setenv("GROUNDWORK_RATE_LIMITS", "frames.worker=7/5, joins.ip=0/60")
    assert env_rates("GROUNDWORK_RATE_LIMITS", {"frames": {}, "joins": {"ip": (30, LONG)}}) == {
        "frames": {"worker": (7, 5)},
        "joins": {},
    }


def joins_in_another_process(limit: int, count: int) -> list[bool]:
    """`count` joins from AWAY checked by another process (another node) under joins.ip=limit: which
    were let through."""
    code = (
        "import django; django.setup(); from collect.ratelimit import rate_check\n"
        f"print([rate_check('joins', ip='{AWAY}') is None for _ in range({count})])"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "groundwork.settings", "GROUNDWORK_RATE_LIMITS": f"joins.ip={limit}/{LONG}"}
    other = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert other.returncode == 0, other.stderr
    return [word == "True" for word in other.stdout.strip().strip("[]").split(", ")]


@pytest.mark.services
def test_the_limit_holds_across_processes(settings) -> None:
    """Another process spends the budget in Redis; this one is then refused."""
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    from collect.ratelimit import rate_check

    limits(settings, joins={"ip": (3, LONG)})
    assert joins_in_another_process(3, 3) == [True, True, True]
    limited = rate_check("joins", ip=AWAY)
    assert limited is not None and limited.rule == "joins" and limited.who == "ip"


@pytest.mark.services
def test_across_processes_a_key_overshoots_by_at_most_its_local_share(settings) -> None:
    """Each process counts the first quarter of a limit in its own memory; past it, in Redis, with
    what it kept back. Another process spends the whole budget of 8; this one then gets its local
    share (2) and not one event more."""
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    from collect.ratelimit import rate_check

    limits(settings, joins={"ip": (8, LONG)})
    assert joins_in_another_process(8, 9) == [True] * 8 + [False]
    assert [rate_check("joins", ip=AWAY) is None for _ in range(4)] == [True, True, False, False]
