"""The site's Prometheus metrics, as the code that does the work records them.

Every process of the topology records into the same definitions. With PROMETHEUS_MULTIPROC_DIR set
(`make run-prod` sets it for every process), prometheus_client keeps each process's values in a
memory-mapped file of that directory and a scrape of any chat process adds them up
(groundwork/metrics_scrape.py); without it (the embedded mode) they live in this process's default
registry. The variable is read when prometheus_client is first imported, so it must be in the
environment before the process starts.

Recording is a counter increment or a histogram observation: a memory write, no I/O, so it is
allowed on the chat path. What is counted from the database (rooms by status, outcomes by
campaign) or the broker (queue depths) is read at scrape time instead, never on the way."""

from __future__ import annotations

import os
import time
from datetime import datetime

from django.conf import settings
from django.utils import timezone

if settings.PROMETHEUS_MULTIPROC_DIR:
    # A process started before the directory was made would fail on its first metric.
    os.makedirs(settings.PROMETHEUS_MULTIPROC_DIR, exist_ok=True)

from prometheus_client import Counter, Gauge, Histogram  # noqa: E402 - after the directory exists

# Seconds. The chat's own steps (an ack, a delivery) take milliseconds; a wizard's panel, a
# rerank or a model's reply can take seconds.
FAST_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
SLOW_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

MESSAGES = Counter("groundwork_messages", "Chat messages stored from a worker's socket (resends not counted).", ["protocol"])
# A livesum gauge is the sum over the processes alive now: a dead chat process's sockets are gone.
SOCKETS_OPEN = Gauge("groundwork_sockets_open", "Websockets open now, by kind (room, waiting).", ["kind"], multiprocess_mode="livesum")
SOCKETS_OPENED = Counter("groundwork_sockets_opened", "Websockets accepted, by kind.", ["kind"])
ACK_SECONDS = Histogram(
    "groundwork_ack_seconds", "A chat message frame received to the sender's own copy (its ack) sent, in the chat process.",
    buckets=FAST_BUCKETS,
)
DELIVERY_SECONDS = Histogram(
    "groundwork_delivery_seconds", "A chat message frame received to its frame sent on another member's socket.",
    buckets=FAST_BUCKETS,
)
KNOWLEDGE_PANEL_SECONDS = Histogram(
    "groundwork_knowledge_panel_seconds", "A turn stored to its knowledge panel published to the room (retrieval included).",
    ["protocol"], buckets=SLOW_BUCKETS,
)
RETRIEVAL_SECONDS = Histogram("groundwork_retrieval_seconds", "One TF-IDF retrieval from a knowledge index.", buckets=FAST_BUCKETS)
RERANK_SECONDS = Histogram("groundwork_rerank_seconds", "One rerank of a knowledge panel by the sentence ranker.", buckets=SLOW_BUCKETS)
MODEL_CALL_SECONDS = Histogram(
    "groundwork_model_call_seconds", "A call to a registered model, retries included, answered or not.", ["model"],
    buckets=SLOW_BUCKETS,
)
MODEL_CALL_FAILURES = Counter(
    "groundwork_model_call_failures", "Calls to a registered model that gave no reply (the partner apologised).", ["model"]
)
MODEL_FIRST_TOKEN_SECONDS = Histogram(
    "groundwork_model_first_token_seconds",
    "A model turn's start (its wait for a free place included) to the first text of the reply kept; a reply that came whole came at once.",
    ["model"], buckets=SLOW_BUCKETS,
)
MODEL_LAST_TOKEN_SECONDS = Histogram(
    "groundwork_model_last_token_seconds", "A model turn's start to the last text of the reply kept.", ["model"], buckets=SLOW_BUCKETS,
)
MODEL_QUEUE_SECONDS = Histogram(
    "groundwork_model_queue_seconds", "A model call's wait for a free place among the model's calls (max_concurrency).", ["model"],
    buckets=SLOW_BUCKETS,
)
MODEL_FAILURES = Counter(
    "groundwork_model_failures",
    "Failed attempts of model calls, and calls that found no free place in time, by reason: timeout (no reply or first token "
    "in time), stalled (a stream paused too long or ran too long), cut_off (a stream ended before its end), error_event (a "
    "stream sent an error), bad_reply (not a reply: garbage, empty, too long), http, unreachable, refused, busy, error.",
    ["model", "reason"],
)
RATE_LIMITED = Counter(
    "groundwork_rate_limited", "Events refused by a rate limit, by rule (frames, sockets, joins, api) and by whom it counted.",
    ["rule", "who"],
)
RESENDS = Counter(
    "groundwork_resends",
    "Copies of an applied frame (a message or an action) that a page sent again, by what answered them: "
    "the socket that applied it (memory, no work) or the database (a copy on a new socket).",
    ["answered"],
)
SWEEPS = Counter("groundwork_sweeps", "Lifecycle sweeps run.")
SWEEP_SECONDS = Histogram("groundwork_sweep_seconds", "One lifecycle sweep.", buckets=SLOW_BUCKETS)
SWEEP_ENDED = Counter("groundwork_sweep_ended", "What the sweeps ended: waits (no partner, left) and rooms (left, stalled).", ["what"])


def socket_kind(consumer: object) -> str:
    """"room" for RoomConsumer, "waiting" for WaitingConsumer."""
    return type(consumer).__name__.removesuffix("Consumer").lower() or "other"


def socket_opened(kind: str) -> None:
    SOCKETS_OPEN.labels(kind).inc()
    SOCKETS_OPENED.labels(kind).inc()


def socket_closed(kind: str) -> None:
    SOCKETS_OPEN.labels(kind).dec()


def since(started: float) -> float:
    """Seconds since `started`, a time.time() reading (comparable across the processes of one machine)."""
    return max(0.0, time.time() - started)


def panel_published(*, protocol: str, stored_at: datetime | None) -> None:
    """A knowledge panel for a turn stored at `stored_at` (the message's `created`) went out."""
    if stored_at is not None:
        KNOWLEDGE_PANEL_SECONDS.labels(protocol).observe(max(0.0, (timezone.now() - stored_at).total_seconds()))
