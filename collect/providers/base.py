"""The provider interface, and the JSON-over-HTTP call both platforms use."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Protocol

from collect.models import Assignment

TIMEOUT_SECONDS = 15


class ProviderError(Exception):
    """The platform refused or could not be reached; the message says what it answered."""


class Provider(Protocol):
    def approve(self, assignment: Assignment, message: str) -> str: ...

    def reject(self, assignment: Assignment, reason: str) -> str: ...

    def bonus(self, assignment: Assignment, cents: int, message: str, token: str) -> str: ...

    def block(self, assignment: Assignment, reason: str) -> str: ...


def post_json(url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as reply:
            text = reply.read().decode() or "null"
    except urllib.error.HTTPError as error:
        raise ProviderError(f"{error.code} from {url}: {error.read().decode(errors='replace')[:300]}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise ProviderError(f"could not reach {url}: {error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise ProviderError(f"{url} answered with something that is not JSON: {text[:200]}") from None
