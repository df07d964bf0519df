"""Crowd platform APIs behind one interface (base.Provider): Prolific and MTurk, each a real HTTP
client. Credentials come from environment variables; without them there is no provider and the
decisions are paid through the CSV export (collect.review.payments)."""

from __future__ import annotations

from django.conf import settings

from collect.providers.base import Provider, ProviderError


def provider_for(platform: str) -> Provider | None:
    if platform == "prolific" and settings.PROLIFIC_API_TOKEN:
        from collect.providers.prolific import ProlificProvider

        return ProlificProvider(base_url=settings.PROLIFIC_API_URL, token=settings.PROLIFIC_API_TOKEN)
    if platform == "mturk" and settings.MTURK_ACCESS_KEY_ID and settings.MTURK_SECRET_ACCESS_KEY:
        from collect.providers.mturk import MTurkProvider

        return MTurkProvider(
            endpoint=settings.MTURK_ENDPOINT,
            region=settings.MTURK_REGION,
            access_key=settings.MTURK_ACCESS_KEY_ID,
            secret_key=settings.MTURK_SECRET_ACCESS_KEY,
        )
    return None


__all__ = ["Provider", "ProviderError", "provider_for"]
