"""The knowledge store: sources, articles and their sentences. Knows nothing about chats."""

from __future__ import annotations

from django.db import models

LEAD_SECTION = ""  # the section name of an article's lead paragraph


class KnowledgeSource(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    language = models.CharField(max_length=16, default="en", help_text="ISO code used for sentence splitting")
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Article(models.Model):
    source = models.ForeignKey(KnowledgeSource, on_delete=models.CASCADE, related_name="articles")
    title = models.CharField(max_length=300)
    lead = models.TextField(help_text="The lead paragraph as imported")
    category = models.CharField(max_length=100, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "title"], name="article_unique_title")]

    def __str__(self) -> str:
        return self.title


class Sentence(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="sentences")
    section = models.CharField(max_length=300, blank=True, default=LEAD_SECTION, help_text="'' = lead paragraph; else the aspect")
    position = models.PositiveIntegerField(help_text="Order within the article")
    text = models.TextField()

    class Meta:
        ordering = ["article_id", "position"]
        constraints = [models.UniqueConstraint(fields=["article", "position"], name="sentence_unique_position")]

    def __str__(self) -> str:
        return self.text[:80]
