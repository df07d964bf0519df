"""Chat load: N Wizard of Wikipedia rooms through the real protocol at a human pace, against real
daphne processes on PostgreSQL + Redis, and a bare Channels relay on the same layer at the same
pace for comparison: as many relay processes as chat processes, each room's two sockets on the
processes its chat room's were on (--relay single: every room in one relay process). One command:

    DATABASE_URL=postgres://... REDIS_URL=redis://... CELERY_BROKER_URL=redis://... \\
        .venv/bin/python bench/chat_load.py --rooms 1000 --pace 15 --duration 60

By default it starts --nodes daphne processes (ports from --port) and Celery workers for the
wizard's retrieval and reranking (as `make run-prod` runs them), creates a bench campaign with the
demo knowledge, pairs 2 × N scripted workers (HTTP join, waiting socket, room socket), lets every
room exchange one message per --pace seconds (the wizard checks a sentence of the knowledge it was
shown; the think time runs from the start of the turn, while that knowledge loads), measures --duration seconds, drains, and checks the database. With --target HOST:PORT,...
and --pids PID,... it uses servers that are already running instead (e.g. `make run-prod`).

Printed: messages/s, ack and partner-delivery latency p50/p95/p99, messages lost (acknowledged but
not stored, or never delivered to the partner), the chat processes' CPU per message, how busy the
machine was meanwhile (so that a run other work slowed shows), and the same for the bare relay,
with the ratio."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TICK = os.sysconf("SC_CLK_TCK")
# How long a scripted wizard waits for the knowledge of their turn before answering without it.
KNOWLEDGE_WAIT_S = 20.0


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICK  # utime + stime
    return total


def machine_cpu() -> tuple[float, float]:
    """CPU seconds all cores spent busy since boot, and those the hypervisor took (steal): with the
    chat processes' own, they tell a quiet run from one that other work slowed."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq) / TICK, steal / TICK


def own_cpu() -> float:
    usage = os.times()
    return usage.user + usage.system


ROLES = ("Celery workers", "PostgreSQL", "Redis")


def _role(pid: str) -> str | None:
    """Which of ROLES a process is, by its name or command line (any PostgreSQL and Redis on the machine)."""
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()  # PostgreSQL rewrites its command lines
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    if name == "postgres":
        return "PostgreSQL"
    if name == "redis-server":
        return "Redis"
    if b"worker" in argv and any(Path(arg.decode(errors="replace")).name == "celery" for arg in argv[:3]):
        return "Celery workers"
    return None


def role_cpu() -> dict[int, tuple[str, float]]:
    """Each process of ROLES: (role, CPU seconds so far)."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (role := _role(entry.name)) is not None:
            try:
                found[int(entry.name)] = (role, cpu_seconds([int(entry.name)]))
            except (OSError, IndexError):
                continue  # gone meanwhile
    return found


def role_window(start: dict[int, tuple[str, float]], end: dict[int, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds per role between two role_cpu() readings; a process started meanwhile counts
    whole, one that ended meanwhile is missed."""
    spent = dict.fromkeys(ROLES, 0.0)
    for pid, (role, seconds) in end.items():
        spent[role] += seconds - start.get(pid, (role, 0.0))[1]
    return spent


def readings(pids: list[int]) -> dict[str, float]:
    """What a measured window is taken between: the time, the servers' CPU, the machine's, this process's."""
    busy, steal = machine_cpu()
    return {"seconds": time.monotonic(), "cpu": cpu_seconds(pids), "machine": busy, "steal": steal, "own": own_cpu()}


def window(start: dict[str, float], end: dict[str, float]) -> dict[str, float]:
    return {name: end[name] - start[name] for name in start}


def percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return f"p50 {cuts[49]:7.1f}  p95 {cuts[94]:7.1f}  p99 {cuts[98]:7.1f} ms"


def slow_acks(timed: list[tuple[float, float, int]], over_ms: float = 50.0) -> str:
    """When the acks over `over_ms` came, by second (UTC, to set beside PostgreSQL's and the servers'
    logs) and chat process: a tail from one stall shows as one or two seconds, a slow run as many."""
    slow = [(at, home) for at, ms, home in timed if ms > over_ms]
    if not slow:
        return f"none over {over_ms:g} ms"
    seconds: dict[str, list[int]] = {}
    for at, home in slow:
        seconds.setdefault(time.strftime("%H:%M:%S", time.gmtime(at)), []).append(home)
    worst = sorted(seconds.items(), key=lambda item: -len(item[1]))[:5]
    return (f"{len(slow)} over {over_ms:g} ms in {len(seconds)} seconds; the most: "
            + ", ".join(f"{second} {len(homes)} (process {'/'.join(str(h) for h in sorted(set(homes)))})" for second, homes in worst))


def client_settle() -> None:
    """This client's own collector pauses would count as the servers' latency: what it holds for
    its thousands of sockets is moved out of the collector's sight before measuring, as the
    servers do with what they load (groundwork.gc_tuning)."""
    from groundwork import gc_tuning

    gc_tuning.settle()


def wait_port(port: int, process: subprocess.Popen[bytes], seconds: float = 120) -> None:
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"a server on port {port} exited (rc {process.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"nothing listens on port {port} after {seconds:.0f} s")


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("load_demo", verbosity=0)


def bench_campaign(slug: str) -> None:
    """A campaign whose dialogues never end during the run and whose workers never time out."""
    from collect.tasktypes.wow.demo import PERSONAS
    from collect.models import Campaign, Persona
    from retrieval.models import KnowledgeSource

    source = KnowledgeSource.objects.get(slug="wiki-demo")
    campaign, created = Campaign.objects.update_or_create(
        slug=slug,
        defaults={"name": "Chat load bench", "knowledge_source": source, "min_turns": 1, "max_turns": 1,
                  "turn_limit": 10_000, "wait_timeout_seconds": 3600, "disconnect_grace_seconds": 3600},
    )
    if created:
        Persona.objects.bulk_create(Persona(campaign=campaign, text=t, topics=topics) for t, topics in PERSONAS)
    # Earlier runs' dead rows vacuumed and the planner's statistics brought up to date: a PostgreSQL
    # without autovacuum (test setups often run so) otherwise gets slower with every run (each
    # message updates its room's row), and plans the join lookups as if the campaign had no rows.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE collect_assignment, collect_room, collect_message, collect_worker")


def rooms_end(slug: str) -> int:
    """End the bench campaign's open rooms and waits (every member `left`), recorded as the
    lifecycle sweep records them, so that they neither pile up over runs nor wait out their hour of
    grace. Returns how many rooms it ended."""
    from django.db import transaction
    from django.utils import timezone

    from collect.lifecycle.outcomes import assignment_outcome_set, room_outcomes_set
    from collect.models import Assignment, AssignmentStatus, Outcome, Room, RoomStatus
    from collect import registry
    from collect.services.matchmaking import LIVE_ROOM_STATUSES

    waiting = Assignment.objects.filter(campaign__slug=slug, status=AssignmentStatus.WAITING)
    for assignment_id in waiting.values_list("pk", flat=True):
        assignment_outcome_set(assignment_id=assignment_id, outcome=Outcome.LEFT)
    ended = 0
    for room in Room.objects.filter(campaign__slug=slug, status__in=LIVE_ROOM_STATUSES).select_related("campaign"):
        with transaction.atomic():
            Room.objects.filter(pk=room.pk).update(status=RoomStatus.INCOMPLETE, end_reason="bench over", ended=timezone.now())
            room_outcomes_set(room=room, outcomes=dict.fromkeys(registry.protocol(room.campaign.protocol).roles, Outcome.LEFT))
        ended += 1
    return ended


async def pair_all(workers: list, concurrency: int) -> None:
    """Join every worker (two at a time per room, so partners meet) with at most `concurrency` joins
    in flight."""
    gate = asyncio.Semaphore(concurrency)

    async def join_pair(first, second) -> None:
        async with gate:
            joining = asyncio.create_task(first.join())
            await asyncio.sleep(0.05)
            await second.join()
            await joining

    await asyncio.gather(*(join_pair(a, b) for a, b in zip(workers[::2], workers[1::2])))


async def groundwork_phase(args: argparse.Namespace, targets: list[tuple[str, int]], pids: list[int]) -> dict:
    from tests.collect.netclient import SENT_AT, Worker

    run = secrets.token_hex(3)
    rng = random.Random(run)
    workers = [
        Worker(f"load-{run}-{i}", args.campaign, targets, home=i % len(targets), think_s=args.pace, rng=rng,
               knowledge_wait_s=KNOWLEDGE_WAIT_S)
        for i in range(2 * args.rooms)
    ]
    started = time.monotonic()
    await pair_all(workers, args.join_concurrency)
    print(f"  paired {args.rooms} rooms in {time.monotonic() - started:.1f} s")
    # Every room socket is opened and synced before the first message, so that what is measured is
    # chatting, not connecting: the sockets open over --ramp seconds, held (paused) until all of
    # them have the room's state; then the rooms start over another --ramp seconds.
    async def chat(index: int, worker) -> None:
        await asyncio.sleep(args.ramp * index / len(workers))
        await worker.chat()

    for worker in workers:
        worker.paused = True
    started = time.monotonic()
    chats = [asyncio.create_task(chat(i, worker)) for i, worker in enumerate(workers)]
    while (connected := sum(1 for worker in workers if worker.state)) < len(workers):
        if time.monotonic() - started > args.ramp + 600:
            raise SystemExit(f"only {connected} of {len(workers)} room sockets connected")
        await asyncio.sleep(0.5)
    print(f"  connected {len(workers)} room sockets in {time.monotonic() - started:.1f} s")
    client_settle()
    for worker in workers:
        await asyncio.sleep(args.ramp / len(workers))
        worker.paused = False
        worker.changed.set()
    await asyncio.sleep(args.warmup)
    for worker in workers:
        worker.stats.ack_ms.clear()
        worker.stats.ack_at.clear()
        worker.stats.delivery_ms.clear()
        worker.stats.knowledge_wait_ms.clear()
        worker.stats.knowledge_missed = 0
    start, roles_start = readings(pids), role_cpu()
    await asyncio.sleep(args.duration)
    measured = window(start, readings(pids))
    roles = role_window(roles_start, role_cpu())
    placement = room_placement(workers)
    acks = [ms for worker in workers for ms in worker.stats.ack_ms]
    slow = [(at, ms, worker.node) for worker in workers for ms, at in zip(worker.stats.ack_ms, worker.stats.ack_at)]
    deliveries = [ms for worker in workers for ms in worker.stats.delivery_ms]
    knowledge = [ms for worker in workers for ms in worker.stats.knowledge_wait_ms]
    knowledge_missed = sum(worker.stats.knowledge_missed for worker in workers)
    for worker in workers:
        worker.paused = True
    await asyncio.sleep(args.drain)
    unacked = sum(len(worker.unacked) for worker in workers)
    lost_stored, undelivered = await asyncio.to_thread(check_stored, workers)
    for chat in chats:
        chat.cancel()
    await asyncio.gather(*chats, return_exceptions=True)
    for worker in workers:
        if worker.socket is not None:
            await worker.socket.close()
    SENT_AT.clear()
    errors: dict[str, int] = {}
    for worker in workers:
        for code in worker.stats.errors:
            errors[code] = errors.get(code, 0) + 1
    return {**measured, "messages": len(acks), "acks": acks, "ack_times": slow, "deliveries": deliveries, "unacked": unacked,
            "lost_stored": lost_stored, "undelivered": undelivered, "errors": errors,
            "reconnects": sum(worker.stats.reconnects for worker in workers),
            "resends": sum(worker.stats.resends for worker in workers),
            "knowledge_resyncs": sum(worker.stats.knowledge_resyncs for worker in workers),
            "knowledge": knowledge, "knowledge_missed": knowledge_missed, "roles": roles, "rooms": args.rooms,
            "placement": placement}


def room_placement(workers: list) -> list[tuple[int, int]]:
    """Which chat process (an index into the targets) each room's two sockets were on."""
    rooms: dict[str, list[int]] = {}
    for worker in workers:
        rooms.setdefault(worker.room_path, []).append(worker.node)
    return [(nodes[0], nodes[-1]) for nodes in rooms.values()]


def check_stored(workers: list) -> tuple[int, int]:
    """(acknowledged messages missing from the database, stored messages a partner never got)."""
    from collect.models import Message

    acked = {cid: seq for worker in workers for cid, seq in worker.stats.sent.items()}
    stored = set(Message.objects.filter(client_id__in=list(acked)).values_list("client_id", flat=True))
    rooms: dict[str, list] = {}
    for worker in workers:
        rooms.setdefault(worker.room_path, []).append(worker)
    undelivered = 0
    for pair in rooms.values():
        for worker, partner in ((pair[0], pair[-1]), (pair[-1], pair[0])):
            undelivered += sum(1 for seq in worker.stats.sent.values() if seq not in partner.stats.received)
    return len(set(acked) - stored), undelivered


async def relay_phase(args: argparse.Namespace, ports: list[int], pids: list[int], placement: list[tuple[int, int]]) -> dict:
    """The same rooms and pace on the bare relay: two sockets per room, strictly alternating. Room i's
    two sockets go to the relay processes `placement[i]` names (indexes into `ports`)."""
    import websockets

    acks: list[float] = []
    deliveries: list[float] = []
    counting = False
    stop = False

    async def room(index: int) -> None:
        urls = [f"ws://127.0.0.1:{ports[node]}/relay/r{index}/" for node in placement[index % len(placement)]]
        sockets = [await websockets.connect(url, ping_interval=None) for url in urls]
        rng = random.Random(index)
        turn = 0
        try:
            await asyncio.sleep(rng.uniform(0, args.pace))
            while not stop:
                speaker, listener = sockets[turn % 2], sockets[(turn + 1) % 2]
                sent = time.monotonic()
                await speaker.send(json.dumps({"type": "message", "text": f"relay {index} {turn}", "client_id": f"{index}-{turn}"}))
                echo = asyncio.ensure_future(speaker.recv())
                heard = await listener.recv()
                delivered = time.monotonic()
                await echo
                acked = time.monotonic()
                assert json.loads(heard)["client_id"] == f"{index}-{turn}"
                if counting:
                    deliveries.append((delivered - sent) * 1000)
                    acks.append((acked - sent) * 1000)
                turn += 1
                await asyncio.sleep(args.pace * rng.uniform(0.5, 1.5))
        finally:
            for socket in sockets:
                await socket.close()

    async def ramped(index: int) -> None:
        await asyncio.sleep(args.ramp * index / args.rooms)
        await room(index)

    tasks = [asyncio.create_task(ramped(i)) for i in range(args.rooms)]
    await asyncio.sleep(args.ramp)
    client_settle()
    await asyncio.sleep(args.warmup)
    counting = True
    start = readings(pids)
    await asyncio.sleep(args.duration)
    measured = window(start, readings(pids))
    counting = False
    stop = True
    await asyncio.sleep(args.pace * 1.6)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {**measured, "messages": len(acks), "acks": acks, "deliveries": deliveries}


def report(name: str, result: dict) -> float:
    per_message = 1000 * result["cpu"] / max(1, result["messages"])
    print(f"\n{name}")
    print(f"  messages        {result['messages']} in {result['seconds']:.0f} s = {result['messages'] / result['seconds']:.1f}/s")
    print(f"  ack             {percentiles(result['acks'])}")
    print(f"  delivery        {percentiles(result['deliveries'])}")
    if "ack_times" in result:
        print(f"  slow acks       {slow_acks(result['ack_times'])}")
    if "unacked" in result:
        print(f"  lost            {result['lost_stored']} acknowledged but not stored, {result['undelivered']} never "
              f"delivered to the partner, {result['unacked']} still unacknowledged after the drain")
        print(f"  errors          {result['errors'] or 'none'}; reconnects {result['reconnects']}; resends {result['resends']}")
        print(f"  wizard's panel  {percentiles(result['knowledge'])} from their turn to the knowledge for it; "
              f"{result['knowledge_missed']} turns without it after a {KNOWLEDGE_WAIT_S:g} s wait; "
              f"{result['knowledge_resyncs']} syncs asking for a late one")
    print(f"  server CPU      {result['cpu']:.1f} s = {per_message:.2f} ms per message")
    busy, steal, chat, own = (result[name] / result["seconds"] for name in ("machine", "steal", "cpu", "own"))
    print(f"  machine         {busy:.2f} of {os.cpu_count()} cores busy: chat processes {chat:.2f}, this load "
          f"generator {own:.2f}, the rest {busy - chat - own:.2f} (workers, PostgreSQL, Redis, anything else); "
          f"{steal:.2f} taken by the hypervisor")
    if "roles" in result:
        # What one core of each role carries at this pace: what another machine's core would add.
        cores = {"chat processes": chat, **{role: cpu / result["seconds"] for role, cpu in result["roles"].items()}}
        print("  cores by role   " + ", ".join(f"{role} {used:.2f}" for role, used in cores.items()))
        print("  rooms per core  " + ", ".join(f"{role} {rooms_per_core(result['rooms'], used)}" for role, used in cores.items()))
    return per_message


def run_relay(args: argparse.Namespace, env: dict[str, str], started: list, layout: str, nodes: int,
              placement: list[tuple[int, int]]) -> float:
    """The bare relay's phase; its CPU per message. `same`: one relay process per chat process, each
    room's two sockets on the processes the chat room's were on: the chat run's own topology. One
    process carries the same messages for less CPU each (more of them share each wake of its event
    loop and each read of its queue), so `single`, every room in one process, is the yardstick of
    a cheaper topology than the chat run's."""
    if layout == "single":
        nodes, placement = 1, [(0, 0)]
    ports = [args.port + 9 + i for i in range(nodes)]
    relays = [start([sys.executable, "-m", "groundwork.serve", "-b", "127.0.0.1", "-p", str(p), "bench.bare_relay:application"],
                    env, args.logs / f"relay-{p}.log") for p in ports]
    started += relays
    try:
        for port, relay in zip(ports, relays):
            wait_port(port, relay)
        title = f"Bare Channels relay ({nodes} process{'es' if nodes > 1 else ''}, same layer and pace"
        if nodes > 1:
            split = sum(1 for a, b in placement if a != b)
            title += f", {split} of {len(placement)} rooms' two sockets on different processes, as in the chat run"
        title += ")"
        return report(title, asyncio.run(relay_phase(args, ports, [r.pid for r in relays], placement)))
    finally:
        for relay in relays:
            relay.terminate()
            relay.wait(timeout=15)


def rooms_per_core(rooms: int, cores: float) -> str:
    return f"{rooms / cores:.0f}" if cores > 0.005 else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=1000, help="concurrent rooms (default 1000)")
    parser.add_argument("--pace", type=float, default=15.0, help="seconds between a room's messages (default 15)")
    parser.add_argument("--duration", type=float, default=60.0, help="measured seconds (default 60)")
    parser.add_argument("--warmup", type=float, default=0.0, help="seconds before measuring (default: --pace)")
    parser.add_argument("--ramp", type=float, default=30.0, help="seconds over which the room sockets open, and again over which the rooms start (default 30)")
    parser.add_argument("--drain", type=float, default=5.0, help="seconds to wait for the last acks (default 5)")
    parser.add_argument("--nodes", type=int, default=2, help="daphne processes to start (default 2)")
    parser.add_argument("--port", type=int, default=8610, help="first port for the started servers (default 8610)")
    parser.add_argument("--target", default="", help="HOST:PORT,... of running servers (then --pids is needed)")
    parser.add_argument("--pids", default="", help="PID,... of the running chat processes, for their CPU")
    parser.add_argument("--campaign", default="bench-load", help="campaign slug (created; default bench-load)")
    parser.add_argument("--join-concurrency", type=int, default=20, help="joins in flight at once (default 20)")
    parser.add_argument("--no-relay", action="store_true", help="skip the bare relay")
    parser.add_argument("--relay", choices=("same", "single", "both"), default="same",
                        help="the bare relay's processes: as many as the chat processes, each room's sockets placed as "
                             "that chat room's were (same, the default), all rooms in one process (single), or both runs")
    parser.add_argument("--logs", type=Path, default=ROOT / "var" / "bench-logs", help="server logs (default var/bench-logs)")
    args = parser.parse_args()
    args.warmup = args.warmup or args.pace
    if not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")):
        raise SystemExit("bench/chat_load.py needs a PostgreSQL DATABASE_URL and REDIS_URL (and CELERY_BROKER_URL)")
    setup_django()
    from django.conf import settings

    from groundwork.topology import WORKERS, worker_command

    bench_campaign(args.campaign)
    # An interrupted run leaves its waits and rooms open: this run's workers would pair with them.
    if left := rooms_end(args.campaign):
        print(f"ended {left} bench rooms an earlier run left open")
    args.logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GROUNDWORK_INDEX_DIR": str(settings.INDEX_DIR), "PYTHONUNBUFFERED": "1",
           "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL") or os.environ["REDIS_URL"],
           "GROUNDWORK_KNOWLEDGE_MODE": "celery", "GROUNDWORK_RERANK_MODE": "celery",
           # The scripted workers join by plain ?worker= links, as the simulate command does.
           "GROUNDWORK_UNSIGNED_LINKS": "1",
           # Lexical panels unless asked otherwise: with stored sentence vectors in var/indexes the
           # default would rank with MiniLM, ~25-60 ms of a CPU per panel (docs/retrieval.md).
           "GROUNDWORK_RANKER_FEATURES": os.environ.get("GROUNDWORK_RANKER_FEATURES", "")
           or ("auto" if os.environ.get("GROUNDWORK_RANKER") or os.environ.get("GROUNDWORK_RERANKER_CHECKPOINT") else "lexical")}
    started: list[subprocess.Popen[bytes]] = []
    try:
        if args.target:
            targets = [(h, int(p)) for h, p in (t.rsplit(":", 1) for t in args.target.split(","))]
            pids = [int(p) for p in args.pids.split(",") if p]
            if not pids:
                raise SystemExit("--target needs --pids (the chat processes whose CPU is measured)")
        else:
            ports = [args.port + i for i in range(args.nodes)]
            # As `make run-prod` runs them (groundwork/topology.py): the chat processes and the
            # niced `default` (retrieval) and `rerank` workers.
            nodes = [start([sys.executable, "-m", "groundwork.serve", "-b", "127.0.0.1", "-p", str(p), "groundwork.asgi:application"],
                           env, args.logs / f"daphne-{p}.log") for p in ports]
            started += nodes
            for queue, concurrency in WORKERS:
                if queue in ("default", "rerank"):
                    started.append(start(worker_command(queue, concurrency, loglevel="WARNING"), env, args.logs / f"celery-{queue}.log"))
            for port, node in zip(ports, nodes):
                wait_port(port, node)
            targets, pids = [("127.0.0.1", p) for p in ports], [n.pid for n in nodes]
        print(f"chat_load: {args.rooms} rooms, a message every {args.pace:g} s per room "
              f"(≈{args.rooms / args.pace:.0f}/s), {args.duration:g} s measured, servers {targets}, "
              f"ranker features {env['GROUNDWORK_RANKER_FEATURES']}")
        chat = asyncio.run(groundwork_phase(args, targets, pids))
        chat_ms = report(f"Groundwork ({len(pids)} chat processes)", chat)
        if not args.no_relay:
            layouts = {"same": ["same"], "single": ["single"], "both": ["same", "single"]}[args.relay]
            for layout in layouts:
                relay_ms = run_relay(args, env, started, layout, len(targets), chat["placement"])
                print(f"\nchat-process CPU per message / bare relay's ({layout}): {chat_ms / max(relay_ms, 1e-9):.2f}x")
        print(f"ended {rooms_end(args.campaign)} bench rooms")
        print(f"load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs "
              "(other work on the machine inflates every figure)")
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
