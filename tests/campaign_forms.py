"""The campaign admin form as a browser posts it, built from the form's own initial values, so a
test names only the fields it is about and a new Campaign field does not break every such test."""

from __future__ import annotations

import json
from typing import Any

from django import forms


def campaign_form_data(**fields: Any) -> dict[str, Any]:
    """Every field of collect's CampaignForm at its initial value, overridden by `fields`.
    Python values are posted as a browser would: JSON fields as JSON text, booleans as "on" or absent."""
    from collect.admin import CampaignForm

    form = CampaignForm()
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = fields.pop(name) if name in fields else form[name].value()
        if isinstance(field, forms.JSONField) and not isinstance(value, str):
            value = json.dumps(value if value is not None else {})
        if isinstance(field, forms.BooleanField):
            if value:
                data[name] = "on"
            continue
        data[name] = "" if value is None else value
    data.update(fields)  # inline formset management fields and the like
    return data


def personas_inline(personas: list[tuple[str, list[str]]]) -> dict[str, Any]:
    """The admin's personas inline rows."""
    data: dict[str, Any] = {
        "personas-TOTAL_FORMS": len(personas),
        "personas-INITIAL_FORMS": 0,
        "personas-MIN_NUM_FORMS": 0,
        "personas-MAX_NUM_FORMS": 1000,
    }
    for i, (text, topics) in enumerate(personas):
        data[f"personas-{i}-text"] = text
        data[f"personas-{i}-topics"] = json.dumps(topics)
    return data
