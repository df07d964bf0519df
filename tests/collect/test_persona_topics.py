"""Persona topics are article titles of the campaign's knowledge source: the admin refuses others
on save and lists existing ones that have no article; `import_dataset personas` refuses a file
naming any, with line numbers, and stores nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils.html import escape

from collect.models import Campaign, Persona
from retrieval.models import KnowledgeSource
from tests.campaign_forms import campaign_form_data, personas_inline

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/collect/campaign/add/"


def campaign_form(source: KnowledgeSource, personas: list[tuple[str, list]]) -> dict:
    """The admin's add form as a browser posts it, with one personas inline row per persona."""
    return campaign_form_data(
        slug="trial", name="Trial", protocol="wow", knowledge_source=source.pk, completion_code="ABCD1234",
        **personas_inline(personas),
    )


def test_the_admin_refuses_a_persona_topic_with_no_article(admin_client: Client, knowledge: KnowledgeSource) -> None:
    form = campaign_form(knowledge, [("i cook.", ["Tea", "Quantum Foam Pasta"]), ("i play.", ["Guitar"])])
    response = admin_client.post(ADD_URL, form)
    assert response.status_code == 200  # the form again, not a redirect
    message = "Topic has no article of that exact title in the knowledge source 'test-wiki': 'Quantum Foam Pasta'"
    assert escape(message) in response.content.decode()
    assert not Campaign.objects.filter(slug="trial").exists()
    assert not Persona.objects.exists()


def test_the_admin_refuses_topics_that_are_not_a_list_of_titles(admin_client: Client, knowledge: KnowledgeSource) -> None:
    response = admin_client.post(ADD_URL, campaign_form(knowledge, [("i cook.", "Tea")]))
    assert response.status_code == 200
    assert "topics must be a non-empty list of article titles" in response.content.decode()
    assert not Campaign.objects.filter(slug="trial").exists()


def test_the_admin_saves_personas_whose_topics_are_articles(admin_client: Client, knowledge: KnowledgeSource) -> None:
    response = admin_client.post(ADD_URL, campaign_form(knowledge, [("i cook.", ["Tea", "Coffee"])]))
    assert response.status_code == 302
    assert list(Persona.objects.values_list("topics", flat=True)) == [["Tea", "Coffee"]]


def test_the_admin_lists_the_topics_without_an_article(admin_client: Client, campaign: Campaign) -> None:
    # Saved before topics were checked (or the source lost the article since).
    Persona.objects.create(campaign=campaign, text="i cook.", topics=["Tea", "Quantum Foam Pasta", "Atlantis"])
    listing = admin_client.get("/admin/collect/campaign/").content.decode()
    assert "Persona topics without an article" in listing
    assert "Quantum Foam Pasta, Atlantis" in listing
    page = admin_client.get(f"/admin/collect/campaign/{campaign.pk}/change/").content.decode()
    assert "Quantum Foam Pasta, Atlantis" in page


def write_lines(path: Path, lines: list) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def test_import_stores_personas_whose_topics_are_articles(campaign: Campaign, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "personas.jsonl", [
        {"text": "i drink too much coffee.", "topics": ["Coffee", "Tea"]},
        {"text": "i have two pets.", "topics": ["Cat", "Dog"]},
    ])
    call_command("import_dataset", "personas", str(path), campaign=campaign.slug, verbosity=0)
    assert list(campaign.personas.order_by("id").values_list("text", "topics"))[1:] == [
        ("i drink too much coffee.", ["Coffee", "Tea"]),
        ("i have two pets.", ["Cat", "Dog"]),
    ]


def test_import_refuses_the_whole_file_naming_each_bad_line(campaign: Campaign, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "personas.jsonl", [
        {"text": "i drink too much coffee.", "topics": ["Coffee", "Tea"]},
        {"text": "i cook.", "topics": ["Quantum Foam Pasta", "Tea"]},
        "{not json",
        {"text": "i hike.", "topics": []},
    ])
    before = Persona.objects.count()
    with pytest.raises(CommandError) as error:
        call_command("import_dataset", "personas", str(path), campaign=campaign.slug, verbosity=0)
    message = str(error.value)
    assert "line 2: no article titled 'Quantum Foam Pasta' in the knowledge source 'test-wiki'" in message
    assert "line 3: invalid JSON" in message
    assert "line 4: topics must be a non-empty list" in message
    assert "line 1" not in message
    assert Persona.objects.count() == before


def test_import_needs_a_campaign(campaign: Campaign, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "personas.jsonl", [{"text": "i hike.", "topics": ["Mount Everest"]}])
    with pytest.raises(CommandError, match="--campaign"):
        call_command("import_dataset", "personas", str(path), verbosity=0)
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        call_command("import_dataset", "personas", str(path), campaign="nope", verbosity=0)
