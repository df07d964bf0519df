"""The campaign admin explains its turn settings."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils.html import escape

from collect.models import Campaign
from retrieval.models import KnowledgeSource
from tests.campaign_forms import campaign_form_data, personas_inline

pytestmark = pytest.mark.django_db


def test_the_turn_limit_field_says_what_it_does(admin_client: Client) -> None:
    page = admin_client.get("/admin/collect/campaign/add/").content.decode()
    assert "The chat ends by itself (and goes to rating) once each worker has sent this many messages" in page


def test_it_refuses_json_text_holding_a_lone_surrogate(admin_client: Client) -> None:
    """An escape such as "\\ud83d" without its pair is plain ASCII in the form; stored, it would make
    every later page that shows the campaign a 500 (issue 47). The form shows again, as typed."""
    source = KnowledgeSource.objects.create(slug="kb", name="kb", language="en")
    typed = '{"partner_left": "LEFT\\ud83d"}'
    data = campaign_form_data(slug="trial", name="Trial", protocol="wow", knowledge_source=source.pk,
                              completion_code="C", outcome_codes=typed, **personas_inline([]))
    response = admin_client.post("/admin/collect/campaign/add/", data)
    assert response.status_code == 200  # the form again, not a redirect to the list
    assert response.context["adminform"].form.errors["outcome_codes"] == [
        "partner_left holds a lone surrogate (U+D83D), which is not valid Unicode text"
    ]
    assert escape(typed) in response.content.decode()
    assert not Campaign.objects.exists()


def test_the_empty_persona_row_is_blank_and_a_campaign_saves_with_it_untouched(admin_client: Client) -> None:
    page = admin_client.get("/admin/collect/campaign/add/")
    topics = page.context["inline_admin_formsets"][0].formset.forms[0]["topics"]
    assert topics.value() in ([], "[]") and "null" not in str(topics)
    source = KnowledgeSource.objects.create(slug="kb2", name="kb2", language="en")
    # The extra row as the browser posts it untouched: its initial text, no persona written.
    data = campaign_form_data(slug="untouched", name="Untouched", protocol="wow", knowledge_source=source.pk,
                              completion_code="C", **personas_inline([]))
    data.update({"personas-TOTAL_FORMS": 1, "personas-0-text": "", "personas-0-topics": "[]"})
    response = admin_client.post("/admin/collect/campaign/add/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    assert Campaign.objects.filter(slug="untouched").exists()
