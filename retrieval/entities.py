"""Entity linking against the article titles of a knowledge source, and entity popularity.

A sentence mentions an entity when the title of an article of the same source occurs in it, at word
boundaries: longest match first, matches never overlap. Matching is case-aware: the exact title
always matches; a title of several words whose rest is lower case also matches with its first
letter in lower case (Wikipedia's first-letter rule: "Time travel" matches "time travel"), but "US"
never matches "us", "New York" never "new york", and a one-word common noun ("Country") only when
capitalised, so that the entities are names rather than every common word. Chinese and Japanese
have no spaces between words: each ideograph or kana is a token of its own there, so "盗梦空间"
is found inside "我喜欢盗梦空间的导演" (a segmenter could cut the title and the sentence differently).

Popularity ranks entities from common to obscure: imported page views where there are any, else
`Article.inlinks`, how many articles of the source mention the entity (computed by `link_source`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Max

from retrieval.models import Article, Mention, Sentence
from retrieval.words import CJK

TOKEN = re.compile(rf"[{CJK}]|[^\W{CJK}]+|[^\w\s]", re.UNICODE)
_END = ""  # trie key marking "a title ends here"


@dataclass
class TitleTrie:
    """Titles as token paths. `titles` counts the source's articles when it was built (cache key)."""

    root: dict
    titles: int

    def find(self, text: str, *, exclude: str = "") -> list[str]:
        """The titles mentioned in `text`, in order of appearance, each once."""
        tokens = TOKEN.findall(text)
        found: list[str] = []
        seen: set[str] = set()
        i = 0
        while i < len(tokens):
            node, best, best_end = self.root, None, i
            j = i
            while j < len(tokens) and tokens[j] in node:
                node = node[tokens[j]]
                j += 1
                if _END in node:
                    best, best_end = node[_END], j
            if best is None:
                i += 1
                continue
            if best != exclude and best not in seen:
                seen.add(best)
                found.append(best)
            i = best_end
        return found


def _variants(title: str) -> list[list[str]]:
    tokens = TOKEN.findall(title)
    if not tokens:
        return []
    variants = [tokens]
    rest = title[1:]
    if title[0].isupper() and rest == rest.lower() and len(tokens) > 1:
        lowered = TOKEN.findall(title[0].lower() + rest)
        if lowered != tokens:
            variants.append(lowered)
    return variants


def trie_build(titles: Iterable[str]) -> TitleTrie:
    root: dict = {}
    count = 0
    for title in titles:
        count += 1
        for tokens in _variants(title):
            node = root
            for token in tokens:
                node = node.setdefault(token, {})
            # An exact-case title wins over a lower-cased variant that reaches the same path.
            if _END not in node or tokens == TOKEN.findall(title):
                node[_END] = title
    return TitleTrie(root, count)


_tries: dict[int, TitleTrie] = {}


def title_trie(source_id: int) -> TitleTrie:
    """The source's titles, built once per process and rebuilt when articles were added."""
    count = Article.objects.filter(source_id=source_id).count()
    trie = _tries.get(source_id)
    if trie is None or trie.titles != count:
        trie = trie_build(Article.objects.filter(source_id=source_id).values_list("title", flat=True).iterator())
        _tries[source_id] = trie
    return trie


def link_articles(*, source_id: int, article_ids: Iterable[int] | None = None) -> int:
    """Link the sentences of these articles (default: every article of the source not yet linked).
    Articles already linked are left alone. Returns the number of mentions created."""
    trie = title_trie(source_id)
    articles = Article.objects.filter(source_id=source_id, entities_linked=False)
    if article_ids is not None:
        articles = articles.filter(pk__in=list(article_ids))
    ids_by_title = dict(Article.objects.filter(source_id=source_id).values_list("title", "pk"))
    created = 0
    pending = list(articles.values_list("pk", "title"))
    for start in range(0, len(pending), 200):
        chunk = pending[start : start + 200]
        titles = dict(chunk)
        mentions = []
        for sentence_id, article_id, text in Sentence.objects.filter(article_id__in=list(titles)).values_list(
            "pk", "article_id", "text"
        ):
            for title in trie.find(text, exclude=titles[article_id]):
                mentions.append(Mention(sentence_id=sentence_id, title=title, entity_id=ids_by_title.get(title)))
        with transaction.atomic():
            Mention.objects.bulk_create(mentions, batch_size=2000, ignore_conflicts=True)
            Article.objects.filter(pk__in=list(titles)).update(entities_linked=True)
        created += len(mentions)
    return created


def link_source(*, source_id: int) -> int:
    """Link every article of the source, then count each entity's in-links (its popularity when no
    page views were imported). Returns the number of mentions created. Seconds for ten thousand
    articles: run it before a campaign goes live (collect.protocols.curiosity.campaign_prepare)."""
    created = link_articles(source_id=source_id)
    inlinks_update(source_id=source_id)
    return created


def inlinks_update(*, source_id: int) -> None:
    counts = (
        Mention.objects.filter(entity__source_id=source_id)
        .values("entity_id")
        .annotate(n=Count("sentence__article_id", distinct=True))
    )
    with transaction.atomic():
        Article.objects.filter(source_id=source_id).update(inlinks=0)
        by_count: dict[int, list[int]] = defaultdict(list)
        for row in counts:
            by_count[row["n"]].append(row["entity_id"])
        for n, ids in by_count.items():
            Article.objects.filter(pk__in=ids).update(inlinks=n)


def popularity(*, source_id: int, titles: Iterable[str]) -> dict[str, int]:
    """Popularity of each title: imported page views (of the article, else of its mentions), else
    in-links. A title the source knows nothing about counts 0."""
    titles = list(dict.fromkeys(titles))
    result = {title: 0 for title in titles}
    for title, pageviews, inlinks in Article.objects.filter(source_id=source_id, title__in=titles).values_list(
        "title", "pageviews", "inlinks"
    ):
        result[title] = pageviews if pageviews is not None else inlinks
    viewed = (
        Mention.objects.filter(sentence__article__source_id=source_id, title__in=titles, pageviews__isnull=False)
        .values("title")
        .annotate(views=Max("pageviews"))
    )
    for row in viewed:
        result[row["title"]] = max(result[row["title"]], row["views"])
    return result
