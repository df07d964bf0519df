"""`GET /metrics`: the Prometheus text format, for the addresses in GROUNDWORK_METRICS_ALLOW
(loopback by default) or a request with `Authorization: Bearer <GROUNDWORK_METRICS_TOKEN>`.

A scrape answers with
- what every process recorded (groundwork/metrics.py): added up over the processes from
  PROMETHEUS_MULTIPROC_DIR when it is set, else this process's own registry;
- what is read now: rooms by status and assignment outcomes by campaign from the database, and the
  depth of each Celery queue from the broker (Redis: LLEN of the queue's lists; RabbitMQ: the
  queue's message count).

A source that cannot be read (the database or the broker down) is left out of that scrape and
`groundwork_scrape_source_up{source=...}` says 0, so the rest still comes back."""

from __future__ import annotations

import glob
import logging
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from groundwork import metrics_access
from groundwork.topology import WORKERS

log = logging.getLogger(__name__)
BROKER_TIMEOUT_S = 2.0
# kombu's Redis transport keeps a queue's messages of priority 0 under the queue's name and those of
# the other priority steps under name + separator + step.
KOMBU_PRIORITY_SEPARATOR = "\x06\x16"
KOMBU_PRIORITY_STEPS = (3, 6, 9)
_LIVE_FILE = re.compile(r"gauge_live\w+?_(\d+)\.db$")


def multiproc_dir() -> str | None:
    return settings.PROMETHEUS_MULTIPROC_DIR or None


def _forget_dead_processes(path: str) -> None:
    """A process that died (a crashed chat process, a restarted worker) leaves its live gauges'
    file behind; its open sockets are not open any more. Its counters stay: they are history."""
    for name in glob.glob(os.path.join(path, "gauge_live*_*.db")):
        match = _LIVE_FILE.search(name)
        if match and not _alive(int(match.group(1))):
            mark_process_dead(int(match.group(1)), path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# Collectors that read state at scrape (the database's rooms and outcomes): registered by the apps
# that own that state when Django loads them, so that this module imports none of them.
_SCRAPE_COLLECTORS: list[Any] = []


def scrape_collector_register(collector: Any) -> None:
    """`collector.collect()` yields prometheus_client Metric families (and groundwork_scrape_source_up
    with its `source` label at 0 when its source cannot be read), on every scrape."""
    _SCRAPE_COLLECTORS.append(collector)


def source_up(source: str, up: bool) -> GaugeMetricFamily:
    family = GaugeMetricFamily("groundwork_scrape_source_up", "Whether this scrape could read the source (1) or not (0).", labels=["source"])
    family.add_metric([source], 1.0 if up else 0.0)
    return family


def celery_queues() -> list[str]:
    """The queues the topology's workers read (groundwork.topology.WORKERS), the default one and
    every routed one."""
    names = {settings.CELERY_TASK_DEFAULT_QUEUE, *(queue for queue, _ in WORKERS)}
    names |= {route["queue"] for route in settings.CELERY_TASK_ROUTES.values() if isinstance(route, dict) and "queue" in route}
    return sorted(names)


_redis_clients: dict[str, Any] = {}


def _broker_client(url: str) -> Any:
    # One client (and its connection pool) per process, not a new connection per scrape.
    if url not in _redis_clients:
        import redis

        _redis_clients[url] = redis.Redis.from_url(url, socket_timeout=BROKER_TIMEOUT_S, socket_connect_timeout=BROKER_TIMEOUT_S)
    return _redis_clients[url]


class QueueCollector:
    """Tasks waiting in each Celery queue, read from the broker at scrape: a Redis broker in one
    pipelined round trip (LLEN of each queue's lists), RabbitMQ by a passive declare of each queue
    (its message count). Nothing without a broker (the embedded mode runs tasks in-process)."""

    def collect(self) -> Iterator[Metric]:
        url = settings.CELERY_BROKER_URL
        if settings.CELERY_TASK_ALWAYS_EAGER or not url:
            return
        queues = celery_queues()
        if url.startswith(("redis://", "rediss://")):
            read = _redis_depths
        elif url.startswith(("amqp://", "amqps://", "pyamqp://")):
            read = _amqp_depths
        else:
            return
        try:
            depths = read(url, queues)
        except Exception as error:  # noqa: BLE001 - a scrape without the broker still has the rest
            log.warning("metrics: the broker could not be read: %r", error)
            yield source_up("broker", False)
            return
        family = GaugeMetricFamily("groundwork_celery_queue_length", "Tasks waiting in each Celery queue, read from the broker at scrape.", labels=["queue"])
        for queue, depth in zip(queues, depths):
            family.add_metric([queue], float(depth))
        yield family
        yield source_up("broker", True)


def _redis_depths(url: str, queues: list[str]) -> list[int]:
    pipe = _broker_client(url).pipeline(transaction=False)
    for queue in queues:
        pipe.llen(queue)
        for step in KOMBU_PRIORITY_STEPS:
            pipe.llen(f"{queue}{KOMBU_PRIORITY_SEPARATOR}{step}")
    lengths = pipe.execute()
    per_queue = 1 + len(KOMBU_PRIORITY_STEPS)
    return [sum(lengths[i * per_queue : (i + 1) * per_queue]) for i in range(len(queues))]


def _amqp_depths(url: str, queues: list[str]) -> list[int]:
    from kombu import Connection

    depths = []
    with Connection(url, connect_timeout=BROKER_TIMEOUT_S) as connection:
        for queue in queues:
            channel = connection.channel()
            try:
                depths.append(channel.queue_declare(queue=queue, passive=True).message_count)
            except connection.channel_errors:
                depths.append(0)  # not declared yet: no worker has started on it and nothing was sent
            finally:
                try:
                    channel.close()
                except Exception:  # noqa: BLE001 - the broker closes a channel whose declare failed
                    pass
    return depths


class _Sources:
    """What generate_latest needs of a registry: collect()."""

    def __init__(self, sources: Iterable[Any]) -> None:
        self.sources = list(sources)

    def collect(self) -> Iterator[Metric]:
        for source in self.sources:
            yield from source.collect()


def scrape() -> bytes:
    """The whole exposition, in Prometheus's text format."""
    path = multiproc_dir()
    if path:
        _forget_dead_processes(path)
        recorded = CollectorRegistry()
        MultiProcessCollector(recorded, path=path)
    else:
        recorded = REGISTRY
    return generate_latest(_Sources([recorded, *_SCRAPE_COLLECTORS, QueueCollector()]))  # type: ignore[arg-type]


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not metrics_access.allowed(request):
        return HttpResponse(
            "Metrics are readable only from the addresses in GROUNDWORK_METRICS_ALLOW or with "
            "Authorization: Bearer <GROUNDWORK_METRICS_TOKEN>.\n",
            status=403, content_type="text/plain; charset=utf-8",
        )
    return HttpResponse(scrape(), content_type=CONTENT_TYPE_LATEST)
