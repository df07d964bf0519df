"""CPU that the metrics add to one chat message: what collect/consumers/room.py records per
message (the ack histogram, the message counter, one delivery observation per partner socket), in
this process's registry (the embedded mode) and in prometheus_client's multi-process files (the
production topology, PROMETHEUS_MULTIPROC_DIR), and the time one /metrics scrape takes to add up
the files of a given number of processes.

    .venv/bin/python bench/metrics_cost.py [--messages 200000] [--processes 8]

Runs itself once per mode in a child process, since prometheus_client picks its mode on import."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def per_message(messages: int) -> float:
    """Microseconds of CPU per message, recorded as the room consumer records it."""
    from groundwork import metrics

    started = time.process_time()
    for _ in range(messages):
        received = time.time()
        metrics.ACK_SECONDS.observe(metrics.since(received))
        metrics.MESSAGES.labels("wow").inc()
        metrics.DELIVERY_SECONDS.observe(metrics.since(received))
    return (time.process_time() - started) / messages * 1e6


def child(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    import django

    django.setup()
    mode = "multi-process" if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else "single-process"
    print(f"{mode}: {per_message(args.messages):.2f} µs of CPU per message")


def scrape_time(processes: int, messages: int) -> None:
    """Fill a directory as `processes` processes would, then time the adding up of one scrape."""
    with tempfile.TemporaryDirectory() as directory:
        env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": directory}
        for _ in range(processes):
            subprocess.run([sys.executable, __file__, "--child", "--messages", str(messages)], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.multiprocess import MultiProcessCollector

        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=directory)
        started = time.perf_counter()
        for _ in range(20):
            generate_latest(registry)
        print(f"a scrape of {processes} processes' files: {(time.perf_counter() - started) / 20 * 1000:.1f} ms (recorded metrics only)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    subprocess.run([sys.executable, __file__, "--child", "--messages", str(args.messages)], env=env, check=True)
    with tempfile.TemporaryDirectory() as directory:
        subprocess.run([sys.executable, __file__, "--child", "--messages", str(args.messages)],
                       env={**env, "PROMETHEUS_MULTIPROC_DIR": directory}, check=True)
    scrape_time(args.processes, 1000)


if __name__ == "__main__":
    main()
