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
    # Entity popularity (Curiosity ranks related entities from common to obscure): page views when
    # an import brings them, else `inlinks`, how many articles of the source link to this one.
    pageviews = models.BigIntegerField(null=True, blank=True, help_text="Page views, when imported")
    inlinks = models.PositiveIntegerField(default=0, help_text="Articles of the source that mention this one")
    entities_linked = models.BooleanField(default=False, help_text="Its sentences have been entity-linked")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "title"], name="article_unique_title")]

    @property
    def popularity(self) -> int:
        return self.pageviews if self.pageviews is not None else self.inlinks

    def __str__(self) -> str:
        return self.title


class Sentence(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="sentences")
    section = models.CharField(max_length=300, blank=True, default=LEAD_SECTION, help_text="'' = lead paragraph; else the aspect")
    position = models.PositiveIntegerField(help_text="Order within the article")
    text = models.TextField()
    # Curiosity's fact database keeps its own ids (`fact.id`, the `fid` of the dialogs) and layout.
    fact_id = models.BigIntegerField(null=True, blank=True, db_index=True, help_text="Imported fact id (Curiosity fid)")
    section_index = models.PositiveIntegerField(null=True, blank=True, help_text="Imported section_idx")
    paragraph_index = models.PositiveIntegerField(null=True, blank=True, help_text="Imported paragraph_idx")

    class Meta:
        ordering = ["article_id", "position"]
        constraints = [models.UniqueConstraint(fields=["article", "position"], name="sentence_unique_position")]

    def __str__(self) -> str:
        return self.text[:80]

    @property
    def fid(self) -> int:
        """The fact's id in Curiosity exports: the imported id, else our own."""
        return self.fact_id if self.fact_id is not None else self.pk


class Mention(models.Model):
    """An entity a sentence mentions: a title, the article of that title when the source has it."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="mentions")
    title = models.CharField(max_length=300, db_index=True)
    entity = models.ForeignKey(Article, null=True, blank=True, on_delete=models.SET_NULL, related_name="mentioned_in")
    is_location = models.BooleanField(default=False)
    pageviews = models.BigIntegerField(null=True, blank=True, help_text="The entity's page views, when imported")
    external_id = models.BigIntegerField(null=True, blank=True, help_text="Imported mention id")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["sentence", "title"], name="mention_unique_title")]

    def __str__(self) -> str:
        return self.title


class FactDatabase(models.Model):
    """A Curiosity fact database file imported into a source. Exports copy the file itself (so that
    `db_checksum` stays the original's) while the source still holds exactly what was imported."""

    source = models.OneToOneField(KnowledgeSource, on_delete=models.CASCADE, related_name="fact_database")
    md5 = models.CharField(max_length=32, db_index=True)
    path = models.CharField(max_length=500, help_text="The kept copy of the file")
    fingerprint = models.JSONField(help_text="Counts of the source right after the import")
    imported = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.source.slug} ({self.md5}{', file not imported yet' if self.is_missing else ''})"

    @property
    def is_missing(self) -> bool:
        # path "": dialogs referring to this db were imported without it; their fact texts are missing.
        return not self.path


class Triple(models.Model):
    """One knowledge-graph fact (DuConv): subject, property, value, text kept exactly as imported
    (DuConv's are Chinese, word-segmented with spaces). A source holds each triple once."""

    source = models.ForeignKey(KnowledgeSource, on_delete=models.CASCADE, related_name="triples")
    subject = models.CharField(max_length=300)
    property = models.CharField(max_length=300)
    value = models.TextField()
    # Values can be whole comments, too long for a B-tree entry: lookups by value go through its
    # first VALUE_KEY_CHARS characters, and uniqueness through a digest of the whole triple.
    value_key = models.CharField(max_length=200)
    digest = models.CharField(max_length=40)

    VALUE_KEY_CHARS = 200

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "digest"], name="triple_unique")]
        indexes = [
            models.Index(fields=["source", "subject"], name="triple_subject"),
            models.Index(fields=["source", "value_key"], name="triple_value"),
            # Goal generation draws a random triple by id within a source.
            models.Index(fields=["source", "id"], name="triple_source_id"),
        ]

    def __str__(self) -> str:
        return f"{self.subject} | {self.property} | {self.value}"
