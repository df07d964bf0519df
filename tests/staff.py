"""Staff logins as people make them: through the admin's login form, so that django-axes counts
them and the second factor is asked for (groundwork/admin_site.py)."""

from __future__ import annotations

import time

from django.test import Client
from django.http import HttpResponse
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

LOGIN = "/admin/login/"


def admin_login(client: Client, username: str, password: str, *, code: str = "", next_url: str = "/admin/", **extra: str) -> HttpResponse:
    """POST the admin login form; a 302 to `next_url` means logged in, a 200 shows the form's errors."""
    return client.post(f"{LOGIN}?next={next_url}", {"username": username, "password": password, "otp_token": code, "next": next_url}, **extra)


def totp_code(key_hex: str, *, ahead: int = 0) -> str:
    """The code an authenticator app shows for this key, `ahead` 30 s steps from now (a code can be
    used once: the next login within the same step needs the next step's code)."""
    totp = TOTP(bytes.fromhex(key_hex), step=30, t0=0, digits=6)
    totp.time = time.time() + 30 * ahead
    return f"{totp.token():06d}"


def device_code(device: TOTPDevice, *, ahead: int = 1) -> str:
    return totp_code(device.key, ahead=ahead)
