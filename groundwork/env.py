"""Strict environment parsing: a bad value stops the process with a message naming the variable.

groundwork/settings.py is their one caller in a Django process (tests/test_configuration.py checks
it): every variable is read once, at start-up, and the code reads django.conf.settings."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use one of 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None, maximum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfigured(f"{name}={value} must be at most {maximum}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of `choices`, compared in lower case; unset or blank gives `default` (which may be "",
    meaning "not chosen", outside `choices`)."""
    raw = os.environ.get(name, "")
    value = raw.strip().lower()
    if not value:
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={raw!r} must be one of {', '.join(choices)}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_rates(name: str, default: dict[str, dict[str, tuple[int, int]]]) -> dict[str, dict[str, tuple[int, int]]]:
    """Rate limits as `rule.who=LIMIT/SECONDS` pairs, comma-separated, e.g.
    `frames.worker=40/10,joins.ip=30/60`; the pairs given replace those defaults, `=0/60` turns one off."""
    rates = {rule: dict(limits) for rule, limits in default.items()}
    raw = os.environ.get(name, "")
    for item in filter(None, (part.strip() for part in raw.split(","))):
        key, _, value = item.partition("=")
        rule, _, who = key.strip().partition(".")
        limit, _, window = value.partition("/")
        if rule not in rates or who not in ("worker", "ip") or not limit.strip().isdigit() or not window.strip().isdigit():
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not RULE.WHO=LIMIT/SECONDS with RULE one of {', '.join(rates)} and WHO worker or ip"
            )
        if int(window) < 1:
            raise ImproperlyConfigured(f"{name}: {item!r}: the window must be at least 1 second")
        if int(limit) == 0:
            rates[rule].pop(who, None)
        else:
            rates[rule][who] = (int(limit), int(window))
    return rates
