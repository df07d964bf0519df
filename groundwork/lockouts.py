"""Staff login lockouts (django-axes): the page a locked-out login gets, the log line, and the
list of current lockouts shown to staff on /research/ (the admin's Axes pages hold the details)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from axes.models import AccessAttempt
from axes.signals import user_locked_out
from django.conf import settings
from django.db.models import Max, Sum
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from groundwork.pages import error_page

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Lockout:
    kind: str  # "account" or "address"
    who: str
    failures: int
    last_attempt: datetime
    until: datetime


def lockouts_current() -> list[Lockout]:
    """Accounts and addresses refused right now, the most recent first. Axes keeps one row per
    (username, address, browser); a lockout is the sum over the rows of one username or one address
    within the cool-off, as axes itself counts."""
    recent = AccessAttempt.objects.filter(attempt_time__gte=timezone.now() - settings.AXES_COOLOFF_TIME)
    out = []
    for kind, field in (("account", "username"), ("address", "ip_address")):
        rows = (
            recent.exclude(**{f"{field}__isnull": True}).values(field)
            .annotate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
            .filter(failures__gte=settings.AXES_FAILURE_LIMIT)
        )
        out += [
            Lockout(kind=kind, who=row[field], failures=row["failures"], last_attempt=row["last"], until=row["last"] + settings.AXES_COOLOFF_TIME)
            for row in rows
        ]
    return sorted(out, key=lambda lockout: lockout.last_attempt, reverse=True)


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: 429 with a page that says why and for how long; nothing logged in."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = (
        f"Too many failed logins for this account or from this address. "
        f"Logins are refused for {minutes} minutes after the last failed one; ask another administrator to lift "
        f"the lockout sooner (Admin → Axes → Access attempts)."
    )
    response = error_page(request, 429, "Login locked", message)
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response


@receiver(user_locked_out)
def lockout_log(sender: Any, request: HttpRequest | None = None, username: str | None = None, ip_address: str | None = None, **kwargs: Any) -> None:
    log.warning(
        "staff login locked out: username=%r address=%s after %d failures; refused for %s",
        username, ip_address, settings.AXES_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME,
    )
