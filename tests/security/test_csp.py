"""The Content-Security-Policy, and templates that live within it (no inline script or style)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script>"),
    (re.compile(r"<style\b", re.I), "<style> element"),
    (re.compile(r"\sstyle\s*=", re.I), "style= attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "on* event handler"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
]


def directives(header: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in (p.strip() for p in header.split(";")) if part}


@pytest.mark.django_db
def test_every_page_carries_the_policy(client) -> None:
    response = client.get("/")
    policy = directives(response["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert "ws://testserver" in policy["connect-src"]


@pytest.mark.django_db
def test_production_allows_only_secure_sockets(client, settings) -> None:
    settings.PRODUCTION = True
    policy = directives(client.get("/")["Content-Security-Policy"])
    assert policy["connect-src"] == ["'self'", "wss://testserver"]


@pytest.mark.parametrize("template", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "templates").rglob("*.html")))
def test_templates_hold_nothing_the_policy_blocks(template: str) -> None:
    text = (ROOT / template).read_text(encoding="utf-8")
    found = [what for pattern, what in INLINE if pattern.search(text)]
    assert not found, f"{template}: {', '.join(found)} (move it to static/js or static/css)"
