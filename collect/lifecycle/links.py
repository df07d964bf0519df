"""Signed in-house links: `/join/<campaign>/?worker=ID&sig=HMAC`. The signature binds the worker id
to the campaign, so nobody can make a link for an id they were not given."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlencode

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

SIGNATURE_CHARS = 32


def link_signature(*, campaign_slug: str, worker: str) -> str:
    return salted_hmac("groundwork.join-link", f"{campaign_slug}\n{worker}", algorithm="sha256").hexdigest()[:SIGNATURE_CHARS]


def link_verify(*, campaign_slug: str, worker: str, signature: str) -> bool:
    return constant_time_compare(link_signature(campaign_slug=campaign_slug, worker=worker), signature)


def join_link(*, base: str, campaign_slug: str, worker: str) -> str:
    query = urlencode({"worker": worker, "sig": link_signature(campaign_slug=campaign_slug, worker=worker)})
    return f"{base.rstrip('/')}/join/{campaign_slug}/?{query}"


def pseudonym_for(*, platform: str, external_id: str) -> str:
    """The id exports carry: a salted hash of the platform id (salt per deployment)."""
    key = settings.PSEUDONYM_SALT.encode()
    return hmac.new(key, f"{platform}\n{external_id}".encode(), hashlib.sha256).hexdigest()[:16]


def browser_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
