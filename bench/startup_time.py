"""How soon a freshly started chat process serves: seconds from starting it (as supervisord does
after a `kill -9`) to its port accepting connections, to its first 200 on /healthz, to its first
answer on / (a page) and to its first 200 on /readyz. Target: every figure within 5 s.

    .venv/bin/python bench/startup_time.py [--runs 5] [--timeout 60]

The command and the environment are `make run-prod`'s (groundwork/topology.py: programs() and
environment()), with DATABASE_URL and REDIS_URL from the environment; without them, the project's
defaults (a throwaway SQLite database, the in-memory channel layer). Loopback only; each process is
stopped (SIGTERM) before the next starts."""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from groundwork.topology import environment, programs  # noqa: E402

TARGET_S = 5.0
POLL_S = 0.02
STAGES = ("listening", "/healthz", "page", "/readyz")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answer(port: int, path: str) -> int | None:
    """The HTTP status of GET `path` (None: nothing answered)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def one_start(out: Path, env: dict[str, str], timeout: float) -> dict[str, float]:
    port = free_port()
    (program,) = programs(roles=["chat"], node_ports=[port], chat_host="127.0.0.1", out=out)
    log = (out / "web1.log").open("ab")
    started = time.monotonic()
    process = subprocess.Popen(program.command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    seen: dict[str, float] = {}
    try:
        while len(seen) < len(STAGES):
            elapsed = time.monotonic() - started
            if elapsed > timeout or process.poll() is not None:
                raise SystemExit(f"not served after {elapsed:.1f} s (exit status {process.poll()}); see {out / 'web1.log'}")
            if "listening" not in seen:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    seen["listening"] = time.monotonic() - started
                except OSError:
                    time.sleep(POLL_S)
                    continue
            for stage, path, served in (("/healthz", "/healthz", lambda s: s == 200),
                                        ("page", "/", lambda s: s is not None and s < 500),
                                        ("/readyz", "/readyz", lambda s: s == 200)):
                if stage not in seen and served(answer(port, path)):
                    seen[stage] = time.monotonic() - started
            time.sleep(POLL_S)
    finally:
        process.terminate()
        process.wait(30)
        log.close()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds one start may take before the bench fails")
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="gw-startup-"))
    if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
        env = {**os.environ, **environment(out=out)}
        services = "PostgreSQL/Redis from DATABASE_URL/REDIS_URL"
    else:
        env = {**os.environ, "GROUNDWORK_VAR_DIR": str(out), "SECRET_KEY": "bench-only-secret-key-" + "0" * 40,
               "PYTHONUNBUFFERED": "1"}
        services = "the defaults (SQLite, in-memory channel layer)"
    print(f"{args.runs} starts of the chat process ({os.cpu_count()} CPUs; {services}); seconds from start:")
    runs = []
    for number in range(1, args.runs + 1):
        seen = one_start(out, env, args.timeout)
        runs.append(seen)
        print(f"  run {number}: " + ", ".join(f"{stage} {seen[stage]:.2f}" for stage in STAGES), flush=True)
    print("median / max: " + ", ".join(
        f"{stage} {statistics.median(r[stage] for r in runs):.2f} / {max(r[stage] for r in runs):.2f}" for stage in STAGES))
    worst = max(max(r.values()) for r in runs)
    print(f"{'within' if worst <= TARGET_S else 'OVER'} the {TARGET_S:g} s target (slowest figure {worst:.2f} s)")


if __name__ == "__main__":
    main()
