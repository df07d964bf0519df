from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from retrieval.models import Article, KnowledgeSource, Sentence


@admin.register(KnowledgeSource)
class KnowledgeSourceAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "language", "article_count", "created"]
    search_fields = ["name", "slug"]
    readonly_fields = ["created"]

    def get_readonly_fields(self, request: HttpRequest, obj: KnowledgeSource | None = None) -> list[str]:
        # The slug names the index directory on disk; renaming a source would orphan its index.
        return ["slug", "created"] if obj else ["created"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[KnowledgeSource]:
        return super().get_queryset(request).annotate(article_count=Count("articles"))

    @admin.display(ordering="article_count", description="articles")
    def article_count(self, source: KnowledgeSource) -> int:
        return source.article_count  # type: ignore[attr-defined]


class SentenceInline(admin.TabularInline):
    model = Sentence
    fields = ["position", "section", "text"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["position"]

    def has_add_permission(self, request: HttpRequest, obj: Article | None = None) -> bool:
        # Sentences come from the importer; editing them by hand would desync them from the lead.
        return False


@admin.register(Article)
class ArticleAdmin(admin.ModelAdmin):
    list_display = ["title", "source", "category"]
    list_filter = ["source", "category"]
    list_select_related = ["source"]
    search_fields = ["title"]
    readonly_fields = ["source", "lead"]
    inlines = [SentenceInline]
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Articles come from import_knowledge, which also splits them into sentences.
        return False
