"""groundwork.topology: the programs `make run-prod` runs under supervisord, their CPU priorities,
the roles a machine runs, the proxy's list of chat processes, and a crash loop's FATAL."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from supervisor.options import ServerOptions

from groundwork.topology import ROOT, main, parser, programs

# A crash loop runs for minutes on a busy machine (its own deadline: 240 s).
pytestmark = [pytest.mark.backends, pytest.mark.timeout(600)]

SERVICES = {"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none", "REDIS_URL": "redis://127.0.0.1:1/0"}


def niceness(command: list[str]) -> int:
    return int(command[command.index("-n") + 1]) if command[0] == "nice" else 0


def write(tmp_path: Path, *options: str, **env: str) -> Path:
    """The files `make run-prod` writes, with fake service URLs (nothing is started)."""
    out = tmp_path / "prod"
    saved = dict(os.environ)
    os.environ.update({**SERVICES, **env})
    try:
        main(["run", "--write-only", "--out", str(out), *options])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return out


def test_chat_processes_come_first_then_retrieval_then_reranking(tmp_path: Path) -> None:
    found = {p.name: p.command for p in programs(roles=["chat", "workers"], node_ports=[8001, 8002], chat_host="127.0.0.1", out=tmp_path)}
    assert niceness(found["web1"]) == niceness(found["web2"]) == 0
    assert 0 < niceness(found["default"]) < niceness(found["rerank"])
    assert "rerank" in found["rerank"] and found["rerank"][found["rerank"].index("-Q") + 1] == "rerank"


def test_supervisord_reads_the_generated_config(tmp_path: Path) -> None:
    out = write(tmp_path)
    options = ServerOptions()
    options.realize(args=["-c", str(out / "supervisord.conf")])
    processes = {config.name: config for group in options.process_group_configs for config in group.process_configs}
    assert set(processes) == {"web1", "web2", "proxy", "default", "index", "rerank", "models", "local_models", "beat", "alerts"}
    # Celery's %h reaches the worker as written (supervisord would expand a bare %).
    assert "-n default@%h" in processes["default"].command
    assert all(config.autorestart for config in processes.values())
    # A worker's SIGTERM reaches its main process alone (a warm shutdown finishes the pool's tasks);
    # only the SIGKILL after stopwaitsecs goes to its pool processes too.
    assert not processes["default"].stopasgroup and processes["default"].killasgroup
    # A chat process's drain (groundwork/shutdown.py) ends before supervisord's SIGKILL.
    assert processes["web1"].stopwaitsecs > 10 and processes["web1"].stopsignal == 15
    assert options.serverurl == f"unix://{out / 'supervisor.sock'}"


def test_a_machine_runs_only_its_roles(tmp_path: Path) -> None:
    out = write(tmp_path, "--roles", "chat,workers", "--chat-host", "0.0.0.0", "--first-node-port", "9101")
    config = (out / "supervisord.conf").read_text()
    assert "[program:web1]" in config and "[program:default]" in config
    assert "[program:proxy]" not in config and "[program:beat]" not in config
    assert "-b 0.0.0.0 -p 9101" in config
    assert not (out / "haproxy.cfg").exists()


def test_the_proxy_lists_this_machines_chat_processes_and_the_upstreams(tmp_path: Path) -> None:
    out = write(tmp_path, "--port", "9100", "--nodes", "1", CHAT_UPSTREAMS="10.0.0.2:8081, 10.0.0.3:8081")
    servers = [line.split()[2] for line in (out / "haproxy.cfg").read_text().splitlines() if line.strip().startswith("server ")]
    assert servers == ["127.0.0.1:9101", "10.0.0.2:8081", "10.0.0.3:8081"]


def test_a_proxy_alone_needs_upstreams_and_no_database(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="CHAT_UPSTREAMS"):
        write(tmp_path, "--roles", "proxy")
    out = tmp_path / "proxy-only"
    saved = dict(os.environ)
    for name in SERVICES:
        os.environ.pop(name, None)
    try:
        main(["run", "--write-only", "--out", str(out), "--roles", "proxy", "--upstreams", "10.0.0.2:8081"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert "10.0.0.2:8081" in (out / "haproxy.cfg").read_text()
    assert "[program:proxy]" in (out / "supervisord.conf").read_text()


@pytest.mark.parametrize("option", [["--roles", "chat,cache"], ["--upstreams", "10.0.0.2"], ["--workers", "default=0"]])
def test_bad_options_are_refused_before_anything_is_written(tmp_path: Path, option: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        write(tmp_path, *option)
    assert exited.value.code == 2
    assert f"argument {option[0]}:" in capsys.readouterr().err
    assert not (tmp_path / "prod").exists()


def test_a_crash_loop_ends_fatal_and_is_reported(tmp_path: Path) -> None:
    """A chat process whose port is taken exits at once, every time: supervisord gives up after its
    retries, the alert listener says so loudly, and `status` exits non-zero."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = tmp_path / "prod"
        env = {**os.environ, **SERVICES, "PYTHONUNBUFFERED": "1"}
        log = tmp_path / "supervisord.log"
        command = [sys.executable, "-m", "groundwork.topology", "run", "--roles", "chat", "--nodes", "1",
                   "--first-node-port", str(port), "--out", str(out), "--write-only"]
        subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)
        with log.open("ab") as output:
            supervisord = subprocess.Popen([sys.executable, "-m", "supervisor.supervisord", "-c", str(out / "supervisord.conf")],
                                           env=env, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 240
            while "GROUNDWORK ALERT: web1 is FATAL" not in log.read_text():
                assert supervisord.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.5)
            status = subprocess.run([sys.executable, "-m", "groundwork.topology", "status", "--out", str(out)],
                                    cwd=ROOT, capture_output=True, text=True)
            assert status.returncode == 1, status.stdout
            assert "web1       FATAL" in status.stdout and "not running: web1" in status.stdout
            # It was throttled: four starts (the first and STARTRETRIES more), not a tight loop.
            assert log.read_text().count("spawned: 'web1'") == 4
            stop = subprocess.run([sys.executable, "-m", "groundwork.topology", "stop", "--out", str(out)],
                                  cwd=ROOT, capture_output=True, text=True, timeout=120)
            assert stop.returncode == 0, stop.stdout
            assert supervisord.wait(timeout=60) == 0
        finally:
            if supervisord.poll() is None:
                supervisord.kill()
            supervisord.wait()


def test_status_without_a_running_topology_says_so(tmp_path: Path) -> None:
    status = subprocess.run([sys.executable, "-m", "groundwork.topology", "status", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True)
    assert status.returncode == 2
    assert "is `make run-prod` running?" in status.stdout


@pytest.mark.parametrize(("make_args", "demo"), [([], False), (["DEMO=1"], True)])
def test_the_production_topology_loads_the_demo_only_when_asked(make_args: list[str], demo: bool) -> None:
    assert parser().parse_args([]).demo is False
    # The command `make run-prod` would run (-n: printed, nothing run).
    done = subprocess.run(["make", "-n", "run-prod", *make_args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "groundwork.topology run" in line]
    assert ("--demo" in line.split()) is demo
