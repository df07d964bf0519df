"""The campaign's authenticity policy: set per role in the admin (a bad one refused with the
reason), shown to the page, and the copy check it applies."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from collect.authenticity.policy import copied_sentence, knowledge_sentences, role_policy
from collect.models import Campaign
from retrieval.models import KnowledgeSource
from tests.campaign_forms import campaign_form_data, personas_inline


def test_a_role_gets_its_own_rules_or_the_star_or_the_defaults() -> None:
    policy = {"wizard": {"paste": "knowledge", "copy": "refuse"}, "*": {"paste": "off"}}
    assert role_policy(policy, "wizard") == {"paste": "knowledge", "copy": "refuse", "timeline": "off"}
    assert role_policy(policy, "apprentice") == {"paste": "off", "copy": "allowed", "timeline": "off"}
    assert role_policy({}, "wizard") == role_policy("garbage", "wizard") == {"paste": "allowed", "copy": "allowed", "timeline": "off"}
    assert role_policy({"*": {"timeline": "on"}}, "wizard")["timeline"] == "on"


def test_the_copy_check_finds_a_whole_sentence_in_any_case_and_punctuation() -> None:
    shown = [{"title": "Guitar", "passage": ["The guitar is a fretted musical instrument. It usually has six strings."]}]
    sentence = copied_sentence("oh cool — THE guitar is a fretted, musical instrument!", knowledge_sentences(shown))
    assert sentence == "The guitar is a fretted musical instrument."
    # Five words or a partial sentence are the worker's own use of the facts.
    assert copied_sentence("It usually has six strings, right?", knowledge_sentences(shown)) is None
    assert copied_sentence("A guitar is a fretted instrument with six strings.", knowledge_sentences(shown)) is None


@pytest.mark.django_db
def test_the_admin_sets_a_policy_per_role_and_refuses_a_bad_one(admin_client: Client) -> None:
    source = KnowledgeSource.objects.create(slug="kb", name="kb", language="en")
    base = dict(slug="trial", name="Trial", protocol="wow", knowledge_source=source.pk, completion_code="C", **personas_inline([]))
    response = admin_client.post("/admin/collect/campaign/add/", campaign_form_data(**base, authenticity_policy='{"wizard": {"paste": "never"}}'))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["authenticity_policy"] == ["wizard: paste must be one of allowed, knowledge, off."]
    response = admin_client.post("/admin/collect/campaign/add/", campaign_form_data(**base, authenticity_policy='{"*": {"timeline": "yes"}}'))
    assert response.context["adminform"].form.errors["authenticity_policy"] == ["*: timeline must be one of off, on."]
    policy = {"wizard": {"paste": "knowledge", "copy": "refuse"}, "apprentice": {"timeline": "on"}}
    response = admin_client.post("/admin/collect/campaign/add/", campaign_form_data(**base, authenticity_policy=json.dumps(policy)))
    assert response.status_code == 302
    assert Campaign.objects.get(slug="trial").authenticity_policy == policy
