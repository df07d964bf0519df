"""The admin site and its login: the password, then, for a staff member who has enrolled a TOTP
device (/staff/second-factor/), the code from their authenticator app. A session is let into the
admin only once it has passed every factor its account has (groundwork/second_factor.py)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin import AdminSite
from django.http import HttpRequest
from django_otp.admin import OTPAdminAuthenticationForm
from django_otp.models import Device


class StaffLoginForm(OTPAdminAuthenticationForm):
    """Username and password (django-axes counts the failures), and the code when the account has
    a confirmed device; accounts without one log in with the password alone."""

    otp_error_messages = {
        **OTPAdminAuthenticationForm.otp_error_messages,
        "token_required": "This account has a second factor: enter the 6-digit code from your authenticator app.",
        "invalid_token": "That authentication code is not right (or was used already): enter the one your app shows now.",
    }
    otp_token = forms.CharField(
        required=False, label="Authentication code", widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"})
    )

    def clean(self) -> dict[str, Any]:
        # AdminAuthenticationForm.clean: the password (authenticate(), where axes refuses a locked
        # account or address) and the staff check; the OTP step only for accounts with a device.
        self.cleaned_data = super(OTPAdminAuthenticationForm, self).clean()
        user = self.get_user()
        if user is not None and user_devices(user):
            self.clean_otp(user)
        return self.cleaned_data

    def _chosen_device(self, user: Any) -> Device | None:
        # One field for the code: without a choice, the account's first confirmed device.
        return super()._chosen_device(user) or next(iter(user_devices(user)), None)


def user_devices(user: Any) -> list[Device]:
    from django_otp import devices_for_user

    return list(devices_for_user(user, confirmed=True))


class GroundworkAdminSite(AdminSite):
    login_form = StaffLoginForm
    login_template = "admin/staff_login.html"

    def has_permission(self, request: HttpRequest) -> bool:
        from groundwork.second_factor import second_factor_passed

        return super().has_permission(request) and second_factor_passed(request)
