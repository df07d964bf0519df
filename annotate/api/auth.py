"""API identities: an annotator (a collect.Worker, by session from the join link or by bearer token)
or a staff user (Django session)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, SessionAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from annotate.identity import BLOCKED, worker_from_token
from annotate.services import AnnotationError
from collect.models import Worker


class Annotator:
    """request.user for an annotator: not a Django user, just the worker. A blocked worker is
    refused on every call, whatever carries them (session or token)."""

    is_authenticated = True
    is_staff = False

    def __init__(self, worker: Worker) -> None:
        if worker.blocked:
            raise AnnotationError("blocked", BLOCKED, status=403)
        self.worker = worker


class WorkerTokenAuthentication(BaseAuthentication):
    keyword = b"bearer"

    def authenticate(self, request: Request) -> tuple[Annotator, str] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword:
            return None
        if len(parts) != 2:
            raise AuthenticationFailed("Authorization: Bearer <token>, with the token from the join endpoint")
        worker = worker_from_token(parts[1].decode("latin-1"))
        if worker is None:
            raise AuthenticationFailed("invalid or expired token: join again")
        return Annotator(worker), parts[1].decode("latin-1")

    def authenticate_header(self, request: Request) -> str:
        return "Bearer"


class WorkerSessionAuthentication(SessionAuthentication):
    """The browser screens: the worker the join link put in the session. CSRF-checked like DRF's."""

    def authenticate(self, request: Request) -> tuple[Annotator, None] | None:
        worker_id = request._request.session.get("worker_id")
        worker = Worker.objects.filter(pk=worker_id).first() if worker_id is not None else None
        if worker is None:
            return None
        self.enforce_csrf(request)
        return Annotator(worker), None


class IsAnnotator(BasePermission):
    message = "join the job first (its link, or POST .../join/ for a token)"

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.user, Annotator)


class IsAnnotatorOrStaff(BasePermission):
    message = IsAnnotator.message

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.user, Annotator) or bool(getattr(request.user, "is_staff", False))


class WorkerTokenScheme(OpenApiAuthenticationExtension):
    target_class = WorkerTokenAuthentication
    name = "workerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "http", "scheme": "bearer", "description": "token from POST /api/annotate/jobs/{slug}/join/"}


class WorkerSessionScheme(OpenApiAuthenticationExtension):
    target_class = WorkerSessionAuthentication
    name = "workerSession"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "apiKey", "in": "cookie", "name": "sessionid", "description": "session from the join link"}
