"""What /metrics reads from the database at each scrape: rooms by status, assignment outcomes by
campaign and authenticity flags by kind (registered with groundwork.metrics_scrape when the app
loads)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from django.db.models import Count
from prometheus_client.core import GaugeMetricFamily, Metric

from collect.models import Assignment, Room, RoomStatus
from collect.models_authenticity import AuthenticityFlag, FlagKind
from groundwork.metrics_scrape import source_up

log = logging.getLogger("groundwork.metrics_scrape")


class DatabaseCollector:
    """Rooms by status and assignment outcomes by campaign, counted in the database at scrape."""

    def collect(self) -> Iterator[Metric]:
        try:
            rooms = dict(Room.objects.order_by().values("status").annotate(n=Count("pk")).values_list("status", "n"))
            outcomes = list(
                Assignment.objects.exclude(outcome="").order_by().values("campaign__slug", "outcome")
                .annotate(n=Count("pk")).values_list("campaign__slug", "outcome", "n")
            )
            flags = dict(AuthenticityFlag.objects.order_by().values("kind").annotate(n=Count("pk")).values_list("kind", "n"))
        except Exception as error:  # noqa: BLE001 - a scrape without the database still has the rest
            log.warning("metrics: the database could not be read: %r", error)
            yield source_up("database", False)
            return
        family = GaugeMetricFamily("groundwork_rooms", "Rooms by status, counted in the database at scrape.", labels=["status"])
        for status in RoomStatus.values:
            family.add_metric([status], float(rooms.get(status, 0)))
        yield family
        family = GaugeMetricFamily(
            "groundwork_outcomes", "Assignments that ended, by campaign (slug) and outcome, counted in the database at scrape.",
            labels=["campaign", "outcome"],
        )
        for slug, outcome, count in sorted(outcomes):
            family.add_metric([slug, outcome], float(count))
        yield family
        family = GaugeMetricFamily(
            "groundwork_authenticity_flags", "Authenticity flags on human turns, by kind (docs/authenticity.md), counted at scrape.",
            labels=["kind"],
        )
        for kind in FlagKind.values:
            family.add_metric([kind], float(flags.get(kind, 0)))
        yield family
        yield source_up("database", True)
