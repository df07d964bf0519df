from __future__ import annotations

import pytest
from django.test import Client

from retrieval.models import Article
from tests.retrieval.conftest import MakeSource

pytestmark = pytest.mark.django_db


def test_it_finds_articles_by_title(admin_client: Client, make_source: MakeSource) -> None:
    make_source({"Axolotl": "A salamander.", "Dog": "A mammal."})

    response = admin_client.get("/admin/retrieval/article/", {"q": "axolotl"})

    assert response.status_code == 200
    assert b"Axolotl" in response.content
    assert b">Dog<" not in response.content


def test_it_shows_an_articles_sentences(admin_client: Client, make_source: MakeSource) -> None:
    make_source({"Axolotl": "A salamander. It regrows limbs."})
    article = Article.objects.get(title="Axolotl")

    response = admin_client.get(f"/admin/retrieval/article/{article.pk}/change/")

    assert response.status_code == 200
    assert b"It regrows limbs." in response.content


def test_it_lists_sources_with_their_article_count(admin_client: Client, make_source: MakeSource) -> None:
    make_source({"Axolotl": "A salamander.", "Dog": "A mammal."}, slug="animals")

    response = admin_client.get("/admin/retrieval/knowledgesource/")

    assert response.status_code == 200
    assert b'<td class="field-article_count">2</td>' in response.content
