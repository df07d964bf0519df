"""The server processes leave what they loaded at start-up out of the garbage collector's walks
(groundwork.gc_tuning): with Python's defaults, a chat process's full collections stop its event
loop for up to 350 ms at 1,000 rooms."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import urlopen

import pytest
from celery.signals import worker_process_init

import groundwork.celery  # noqa: F401 (connects the worker signal)
from groundwork import gc_tuning
from tests.collect.nodes import free_port

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def unfrozen():
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_settle_takes_what_is_loaded_out_of_the_walks(unfrozen):
    loaded = [{"kept": i} for i in range(10_000)]
    walked_before = len(gc.get_objects())
    gc_tuning.settle()
    assert gc.get_freeze_count() >= len(loaded)
    assert len(gc.get_objects()) < walked_before - len(loaded)
    assert gc.get_threshold() == gc_tuning.THRESHOLDS


def test_a_celery_pool_process_settles_when_it_starts(unfrozen):
    assert gc.get_freeze_count() == 0
    worker_process_init.send(sender=None)
    assert gc.get_freeze_count() > 0


def test_the_chat_server_settles_after_loading_its_application():
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "groundwork.serve", "-b", "127.0.0.1", "-p", str(port), "tests.gc_probe_app:application"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    state = json.loads(response.read())
                break
            except OSError as error:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"groundwork.serve did not serve: {server.stderr.read().decode()[-2000:]}") from error
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(10)
    # daphne, Twisted and the application, loaded before serving, are frozen; what is walked is
    # only what came after.
    assert state["frozen"] > 10_000
    assert state["walked"] < state["frozen"] / 2
    assert state["thresholds"] == list(gc_tuning.THRESHOLDS)
