"""`python -m groundwork.topology status|stop|restart`: the running topology, through supervisord's
control socket (var/prod/supervisor.sock).

- status: every program's state and pid; exits 1 while any is not RUNNING (FATAL, BACKOFF,
  STARTING, STOPPED…), 2 when no supervisord answers.
- stop: supervisord stops every program (chat processes drain: groundwork/shutdown.py) and exits.
- restart: a rolling restart of this machine's programs, one at a time. Each chat process is
  stopped (it drains: its pages reconnect to the others through the proxy), started again, and
  waited for: its /readyz answers 200 and the proxy's next health check has taken it back in;
  then the next. Then each Celery worker (a warm shutdown: the tasks in hand finish) and beat."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import xmlrpc.client
from pathlib import Path
from typing import Any

from supervisor.xmlrpc import SupervisorTransport

from groundwork.topology import CHECK_INTER_S

READY_TIMEOUT_S = 120


def control(out: Path) -> Any:
    socket = out / "supervisor.sock"
    return xmlrpc.client.ServerProxy("http://127.0.0.1", transport=SupervisorTransport(None, None, f"unix://{socket}"))


def connected(out: Path) -> Any | None:
    proxy = control(out)
    try:
        proxy.supervisor.getState()
    except (OSError, xmlrpc.client.Error) as error:
        print(f"no supervisord answers on {out / 'supervisor.sock'} ({error}); is `make run-prod` running?")
        return None
    return proxy


def status(out: Path) -> int:
    proxy = connected(out)
    if proxy is None:
        return 2
    infos = proxy.supervisor.getAllProcessInfo()
    for info in infos:
        pid = f"pid {info['pid']}, " if info["pid"] and "pid" not in info["description"] else ""
        print(f"{info['name']:<10} {info['statename']:<9} {pid}{info['description']}")
    down = [info["name"] for info in infos if info["statename"] != "RUNNING"]
    if down:
        print(f"not running: {', '.join(down)}")
        return 1
    return 0


def stop(out: Path) -> int:
    proxy = connected(out)
    if proxy is None:
        return 2
    pid = proxy.supervisor.getPID()
    proxy.supervisor.shutdown()
    while alive(pid):  # supervisord stops its programs (each within its stopwaitsecs), then exits
        time.sleep(0.2)
    print("stopped")
    return 0


def alive(pid: int) -> bool:
    """Whether `pid` runs (an exited process its parent has not reaped yet does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def ready(host: str, port: int, *, seconds: float = READY_TIMEOUT_S) -> None:
    deadline = time.monotonic() + seconds
    last = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/readyz", timeout=5) as response:
                if response.status == 200:
                    return
        except (OSError, urllib.error.HTTPError) as error:
            last = str(error)
        time.sleep(0.2)
    raise SystemExit(f"{host}:{port} is not ready after {seconds:.0f} s ({last}); the rolling restart stops here")


def restart_one(proxy: Any, name: str) -> None:
    started = time.monotonic()
    info = proxy.supervisor.getProcessInfo(name)
    if info["statename"] in ("RUNNING", "STARTING", "BACKOFF"):
        proxy.supervisor.stopProcess(name, True)
    stopped = time.monotonic()
    proxy.supervisor.startProcess(name, True)  # returns once it is RUNNING (up for its startsecs)
    print(f"{name}: stopped in {stopped - started:.1f} s, running again after {time.monotonic() - stopped:.1f} s "
          f"(pid {proxy.supervisor.getProcessInfo(name)['pid']})", flush=True)


def restart(out: Path) -> int:
    proxy = connected(out)
    if proxy is None:
        return 2
    topology = json.loads((out / "topology.json").read_text(encoding="utf-8"))
    for chat in topology["chat"]:
        restart_one(proxy, chat["name"])
        ready(chat["host"], chat["port"])
        # HAProxy takes a process back after one good check (`rise 1`, every CHECK_INTER_S); before
        # that, the next process's pages would all land on the others.
        time.sleep(CHECK_INTER_S + 1)
        print(f"{chat['name']}: ready on {chat['host']}:{chat['port']}", flush=True)
    for name in topology["workers"]:
        restart_one(proxy, name)
    return 0
