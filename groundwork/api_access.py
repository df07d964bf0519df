"""Who may see how the API is built: the OpenAPI schema and DRF's browsable (HTML) API are for staff,
unless GROUNDWORK_API_DOCS_PUBLIC=1. Everyone else gets JSON, and 403 for the schema."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer
from rest_framework.request import Request


def sees_api_docs(user: Any) -> bool:
    return settings.API_DOCS_PUBLIC or bool(getattr(user, "is_staff", False))


class ApiDocsPermission(BasePermission):
    message = "The API schema is for staff (or set GROUNDWORK_API_DOCS_PUBLIC=1)."

    def has_permission(self, request: Request, view: Any) -> bool:
        return sees_api_docs(request.user)


class StaffBrowsableNegotiation(DefaultContentNegotiation):
    """The HTML browsable API only for those who may see the docs; JSON for everyone else."""

    def select_renderer(self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None) -> Any:
        # Django's session user (staff sign in through the admin): negotiation runs before DRF
        # authenticates, and must not authenticate early (that would change how failures are reported).
        if not sees_api_docs(getattr(request._request, "user", None)):
            renderers = [r for r in renderers if not isinstance(r, BrowsableAPIRenderer)] or renderers
        return super().select_renderer(request, renderers, format_suffix)
