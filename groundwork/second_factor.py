"""The staff second factor (django-otp, TOTP).

A staff member enrols at /staff/second-factor/: the page shows an otpauth:// URI and its QR code
for an authenticator app, and the device is stored only once a first code from the app confirms
it. From then on the admin login asks for a code, and a session of that account that has not
given one (logged in elsewhere before enrolling) is sent back to the login before any page.
SECOND_FACTOR_REQUIRED names who must enrol ("superusers" in production): until they have, every
page they open sends them to enrol."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlencode

import segno
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

from groundwork.admin_site import user_devices
from groundwork.middleware import DualModeMiddleware

PENDING_KEY = "gw_totp_pending_key"
DEVICE_NAME = "Authenticator app"


def _is_staff(user: Any) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.is_superuser))


def second_factor_required(user: Any) -> bool:
    rule = settings.SECOND_FACTOR_REQUIRED
    return (rule == "staff" and (user.is_staff or user.is_superuser)) or (rule in ("staff", "superusers") and user.is_superuser)


def second_factor_passed(request: HttpRequest) -> bool:
    """Whether this session may act as staff: it gave a code, or its account has no device and
    need not have one."""
    user = request.user
    if getattr(user, "is_verified", lambda: False)():
        return True
    return not user_devices(user) and not second_factor_required(user)


class SecondFactorMiddleware(DualModeMiddleware):
    """Before any page a staff session opens: one that owes a code goes to the login, one whose
    account must enrol goes to the enrolment page. Everyone else passes untouched (no query: the
    devices are looked up for staff sessions only). Sync and async, so that Django's ASGI handler
    hops no thread for it."""

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        return self.refusal(request, request.user) or self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        user = await request.auser()
        if _is_staff(user) and not self.exempt(request.path_info):
            refused = await sync_to_async(self.refusal)(request, user)
            if refused is not None:
                return refused
        return await self.get_response(request)

    def refusal(self, request: HttpRequest, user: Any) -> HttpResponse | None:
        if not _is_staff(user) or self.exempt(request.path_info) or user.is_verified():
            return None
        if user_devices(user):
            target = reverse("admin:login")
            message = "This session has not given the authentication code: log in again."
        elif second_factor_required(user):
            target = reverse("second_factor")
            message = "Set up a second factor before using the staff pages."
        else:
            return None
        if request.method not in ("GET", "HEAD"):
            return HttpResponseForbidden(message, content_type="text/plain; charset=utf-8")
        return redirect(f"{target}?{urlencode({'next': request.get_full_path()})}")

    @staticmethod
    def exempt(path: str) -> bool:
        """The login, the logout, enrolment itself, static files and the probes."""
        static = "/" + settings.STATIC_URL.lstrip("/")
        return path in (reverse("admin:login"), reverse("admin:logout"), reverse("second_factor"), "/healthz", "/readyz", "/metrics") or path.startswith(static)


def _qr_data_uri(uri: str) -> str:
    # A data: image, which the Content-Security-Policy allows (img-src 'self' data:).
    return segno.make(uri, error="m").svg_data_uri(scale=5, border=2)


def totp_enrol(*, user: Any, key: str, token: str) -> TOTPDevice | None:
    """Stores a confirmed TOTP device for `user` if `token` is a current code for `key`; otherwise
    writes nothing and returns None."""

    class Rejected(Exception):
        pass

    try:
        with transaction.atomic():
            # Verified as stored (drift, replay of the same code) by django-otp's own check; the
            # device is rolled back with its failed-attempt count when the code is wrong.
            device = TOTPDevice.objects.create(user=user, name=DEVICE_NAME, key=key, confirmed=False)
            if not device.verify_token(token):
                raise Rejected
            device.confirmed = True
            device.save(update_fields=["confirmed"])
    except Rejected:
        return None
    return device


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return reverse("research:index")


@staff_member_required
def second_factor(request: HttpRequest) -> HttpResponse:
    """GET: the enrolment page (or the account's status once enrolled); POST: confirm with a code."""
    devices = user_devices(request.user)
    if devices:
        return render(request, "staff/second_factor.html", {"devices": devices, "next": _next_url(request)})
    key = request.session.get(PENDING_KEY)
    if not key:
        key = request.session[PENDING_KEY] = secrets.token_hex(20)
    error = ""
    status = 200
    if request.method == "POST":
        token = request.POST.get("token", "").strip().replace(" ", "")
        device = totp_enrol(user=request.user, key=key, token=token) if token.isdigit() and len(token) == 6 else None
        if device is not None:
            del request.session[PENDING_KEY]
            otp_login(request, device)
            messages.success(request, "Second factor on: the admin login now asks for a code from your app.")
            return redirect(_next_url(request))
        error = "That code does not match. Enter the 6-digit code your app shows now for Groundwork."
        status = 400
    uri = TOTPDevice(user=request.user, name=DEVICE_NAME, key=key).config_url
    context = {"uri": uri, "qr": _qr_data_uri(uri), "secret": _base32(key), "error": error, "next": _next_url(request)}
    return render(request, "staff/second_factor.html", context, status=status)


def _base32(key: str) -> str:
    from base64 import b32encode

    return b32encode(bytes.fromhex(key)).decode("ascii")
