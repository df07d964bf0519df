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
    articles: run it before a campaign goes live (collect.tasktypes.curiosity.protocol.campaign_prepare)."""
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


# Words that join the parts of one name ("Book of Han", "Cathedral of Saint Mary of the Flower").
_NAME_JOINERS = {"of", "the", "de", "del", "della", "di", "da", "do", "dos", "du", "des", "la", "le", "von", "van", "der", "y"}


def _capitalised(token: str) -> bool:
    return token[:1].isupper()


def _in_longer_name(tokens: list[str], start: int, end: int) -> bool:
    """Whether tokens[start:end] is part of a longer capitalised name: a capitalised word right
    before it (other than the sentence's first word, capitalised anyway) or right after it, or one
    joined to it by "of", "the", "de"… ("Sea of Japan", "Book of Han")."""
    before = start - 1
    while before >= 0 and tokens[before] in _NAME_JOINERS:
        before -= 1
    if before >= 0 and _capitalised(tokens[before]) and tokens[before].isalpha() and (before > 0 or before < start - 1):
        return True  # at 0, a word next to the title is capitalised as the sentence's first
    after = end
    while after < len(tokens) and tokens[after] in _NAME_JOINERS:
        after += 1
    if after > end and after < len(tokens) and tokens[after].isdigit():
        return True  # "the War of 1870"
    return after < len(tokens) and _capitalised(tokens[after]) and tokens[after].isalpha()


def name_mentioned(text: str, title: str) -> bool:
    """Whether `text` names the entity `title` itself: some occurrence of the title (exact case)
    stands alone, not inside a longer name ("Book" in "the Book of Han", "Ezra" in "Ezra Weston
    Loomis Pound", "Germany" in "Nazi Germany"). A text where the title does not occur at all is
    linked to it by other means (an importer's or a builder's mention): True."""
    tokens, wanted = TOKEN.findall(text), TOKEN.findall(title)
    if not wanted:
        return False
    found = False
    for start in range(len(tokens) - len(wanted) + 1):
        if tokens[start : start + len(wanted)] == wanted:
            found = True
            if not _in_longer_name(tokens, start, start + len(wanted)):
                return True
    return not found


def common_noun(title: str, text: str) -> bool:
    """Whether the title is a common noun rather than a name, judged by how `text` (the entity's own
    lead, and what else mentions it) writes it. Wikipedia capitalises every title's first letter,
    so a text that writes it in lower case ("A flower, also known as a bloom…", "gibbons", "rock
    music") names a kind of thing; and a one-word title must be capitalised somewhere inside a
    sentence, not only as a sentence's first word ("Graffiti is writing…", "Dynamite is an
    explosive…"), to show it is a name. A title without letters ("1", "1984") is no name either."""
    if not any(ch.isalpha() for ch in title):
        return True
    lowered = title[0].lower() + title[1:]
    if lowered != title and re.search(rf"(?<!\w){re.escape(lowered)}(?:e?s)?(?!\w)", text):
        return True
    if len(TOKEN.findall(title)) > 1 or lowered == title:
        return False
    for match in re.finditer(rf"(?<!\w){re.escape(title)}(?!\w)", text):
        if not _SENTENCE_START.search(text[: match.start()]):
            return False
    return True


_SENTENCE_START = re.compile(r"(?:^|[.!?][\"'”’)\]]*\s+)[\"'“‘(\[]*$")
