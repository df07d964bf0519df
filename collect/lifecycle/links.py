"""Signed in-house links: `/join/<campaign>/?worker=ID&sig=HMAC` and `/annotate/join/<job>/?worker=ID&sig=HMAC`.
The signature binds the worker id to one campaign or one job, each kind in its own namespace, so
nobody can make a link for an id they were not given, and a campaign's link does not open a job of
the same slug (or the other way round)."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlencode

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

SIGNATURE_CHARS = 32
CAMPAIGN_LINKS, JOB_LINKS = "campaign", "job"
# One salt per kind of work; the campaigns' salt predates jobs and stays, so issued links keep working.
_SALTS = {CAMPAIGN_LINKS: "groundwork.join-link", JOB_LINKS: "groundwork.annotate-link"}
_PATHS = {CAMPAIGN_LINKS: "/join/{slug}/", JOB_LINKS: "/annotate/join/{slug}/"}


def signature_for(*, kind: str, slug: str, worker: str) -> str:
    return salted_hmac(_SALTS[kind], f"{slug}\n{worker}", algorithm="sha256").hexdigest()[:SIGNATURE_CHARS]


def signature_verify(*, kind: str, slug: str, worker: str, signature: str) -> bool:
    return constant_time_compare(signature_for(kind=kind, slug=slug, worker=worker), signature)


def signed_link(*, base: str, kind: str, slug: str, worker: str) -> str:
    query = urlencode({"worker": worker, "sig": signature_for(kind=kind, slug=slug, worker=worker)})
    return f"{base.rstrip('/')}{_PATHS[kind].format(slug=slug)}?{query}"


def link_signature(*, campaign_slug: str, worker: str) -> str:
    return signature_for(kind=CAMPAIGN_LINKS, slug=campaign_slug, worker=worker)


def join_link(*, base: str, campaign_slug: str, worker: str) -> str:
    return signed_link(base=base, kind=CAMPAIGN_LINKS, slug=campaign_slug, worker=worker)


def pseudonym_for(*, platform: str, external_id: str) -> str:
    """The id exports carry: a salted hash of the platform id (salt per deployment)."""
    key = settings.PSEUDONYM_SALT.encode()
    return hmac.new(key, f"{platform}\n{external_id}".encode(), hashlib.sha256).hexdigest()[:16]


def browser_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
