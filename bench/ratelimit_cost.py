"""Cost of the shared rate-limit check that every websocket frame pays (collect.ratelimit.arate_check):
wall time and this process's CPU per check, against Redis (REDIS_URL) and in memory. With Redis,
two cases: a key under its local share (counted in the process: a worker at a human pace) and a
key past it (every check a Redis round trip: a flood).

    SECRET_KEY=... REDIS_URL=redis://127.0.0.1:6379/10 python bench/ratelimit_cost.py [--checks 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")


async def measure(checks: int) -> tuple[float, float]:
    from collect.ratelimit import arate_check

    await arate_check("frames", worker=1, ip="203.0.113.1")  # connect, load the script
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(checks):
        await arate_check("frames", worker=1, ip="203.0.113.1")
    return (time.perf_counter() - wall) / checks * 1000, (time.process_time() - cpu) / checks * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=3000)
    args = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings

    from collect.ratelimit import rate_limits_reset

    # The cost is the counting; whether a check is refused does not change it. A limit of 4 has a
    # local share of 1: every check after the first goes to Redis.
    never, flood = {"worker": (10**9, 10), "ip": (10**9, 10)}, {"worker": (4, 10), "ip": (4, 10)}
    cases = [("redis, under the local share", settings.REDIS_URL, never), ("redis, past it", settings.REDIS_URL, flood)]
    cases = [case for case in cases if case[1]] + [("memory (no REDIS_URL)", "", never)]
    for name, url, frames in cases:
        settings.REDIS_URL = url
        settings.RATE_LIMITS = {**settings.RATE_LIMITS, "frames": frames}
        wall, cpu = asyncio.run(measure(args.checks))
        print(f"{name:30s} {args.checks} checks: {wall:.3f} ms wall, {cpu:.3f} ms CPU per check")
        rate_limits_reset()


if __name__ == "__main__":
    main()
