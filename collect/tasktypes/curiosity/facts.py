"""The assistant's fact bank: nine facts of the topic re-ranked on every turn by TF-IDF similarity to
the last three turns — three *rooted* (mention an entity the user knows, source "known"), three
*aspect* (from the section of the user's current aspect, source "section"), three *general* (any
fact of the topic, source "random"). A category short of facts leaves its places to general facts.
The order is shuffled, facts shown `drop_after_shown` times and never used are dropped.

Each fact carries what the assistant's screen shows with it: its article, its section (the aspect;
"" for the lead) and, when its first words point back, the sentence before it or the article's title
(retrieval/curiosity/context.py). Display only: the fact's text, and the exported fact, stay its own.

The TF-IDF model of a topic (fitted on that topic's facts) is built once per process and rebuilt
when the topic's facts or mentions change.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.db.models import Count, Max
from scipy.sparse import csr_matrix
from sklearn.feature_extraction.text import TfidfVectorizer

from retrieval.curiosity.context import Line, contexts
from retrieval.models import Article, Mention, Sentence
from retrieval.words import terms_for

KNOWN, SECTION, RANDOM = "known", "section", "random"
SOURCES = (KNOWN, SECTION, RANDOM)
CACHE_SIZE = 256


@dataclass
class TopicFacts:
    key: tuple
    fids: list[int]
    texts: list[str]
    sections: list[str]
    mentions: list[frozenset[str]]
    contexts: list[str]  # what each fact is shown after ("" when it reads on its own)
    title: str
    vectorizer: TfidfVectorizer | None
    matrix: csr_matrix | None  # one L2-normalised row per fact

    def scores(self, context: str) -> np.ndarray:
        if self.vectorizer is None or not context.strip():
            return np.zeros(len(self.fids), dtype=np.float64)
        query = self.vectorizer.transform([context])
        return np.asarray((self.matrix @ query.T).todense()).ravel()


_cache: OrderedDict[int, TopicFacts] = OrderedDict()


def topic_article(*, source_id: int, title: str) -> Article | None:
    return Article.objects.filter(source_id=source_id, title=title).first()


def topic_facts(article: Article, *, language: str = "en") -> TopicFacts:
    """The article's facts and their TF-IDF model, from the per-process cache when still current."""
    stamp = Sentence.objects.filter(article_id=article.pk).aggregate(
        n=Count("id", distinct=True), last=Max("id"), mentions=Count("mentions")
    )
    key = (stamp["n"], stamp["last"], stamp["mentions"])
    cached = _cache.get(article.pk)
    if cached is not None and cached.key == key:
        _cache.move_to_end(article.pk)
        return cached
    facts = topic_facts_build(article.pk, key=key, language=language, title=article.title)
    _cache[article.pk] = facts
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return facts


def topic_facts_build(article_id: int, *, key: tuple = (), language: str = "en", title: str = "") -> TopicFacts:
    rows = list(
        Sentence.objects.filter(article_id=article_id).order_by("position")
        .values_list("pk", "fact_id", "section", "text", "paragraph_index")
    )
    titles: dict[int, set[str]] = {}
    for sentence_id, entity in Mention.objects.filter(sentence__article_id=article_id).values_list("sentence_id", "title"):
        titles.setdefault(sentence_id, set()).add(entity)
    texts = [text for _, _, _, text, _ in rows]
    vectorizer, matrix = None, None
    if texts:
        # Words by the source's language: Chinese segmented, English stemmed without stop words.
        vectorizer = TfidfVectorizer(
            ngram_range=(1, 2), sublinear_tf=True, tokenizer=terms_for(language), token_pattern=None, lowercase=False
        )
        try:
            matrix = vectorizer.fit_transform(texts).tocsr()
        except ValueError:  # nothing but stop words
            vectorizer, matrix = None, None
    return TopicFacts(
        key=key,
        fids=[fact_id if fact_id is not None else pk for pk, fact_id, _, _, _ in rows],
        texts=texts,
        sections=[section for _, _, section, _, _ in rows],
        mentions=[frozenset(titles.get(pk, ())) for pk, _, _, _, _ in rows],
        contexts=contexts([Line(section, paragraph, text) for _, _, section, text, paragraph in rows], title=title, language=language),
        title=title,
        vectorizer=vectorizer,
        matrix=matrix,
    )


def bank_select(
    facts: TopicFacts,
    *,
    context: str,
    known: Iterable[str],
    aspects: list[str],
    dropped: set[int] = frozenset(),  # type: ignore[assignment]
    per_category: int = 3,
    seed: int = 0,
    shuffle_seed: int = 0,
) -> list[dict]:
    """[{fid, source, text, article, section, context}], at most 3 × per_category facts. `aspects`: the current aspect first,
    then the other (its section tops up a short current one). Ties (e.g. no context yet) break by
    a fixed random order of the room (`seed`); the result is shuffled with `shuffle_seed`."""
    n = len(facts.fids)
    if n == 0:
        return []
    scores = facts.scores(context)
    tiebreak = np.arange(n)
    random.Random(seed).shuffle(tiebreak)
    order = [int(i) for i in np.lexsort((tiebreak, -scores)) if facts.fids[i] not in dropped]
    known = set(known)
    picked: list[tuple[int, str]] = []
    taken: set[int] = set()

    def take(source: str, want: int, accept) -> None:
        for i in order:
            if want <= 0:
                return
            if i not in taken and accept(i):
                taken.add(i)
                picked.append((i, source))
                want -= 1

    take(KNOWN, per_category, lambda i: bool(known) and not known.isdisjoint(facts.mentions[i]))
    before = len(picked)
    for aspect in aspects:
        take(SECTION, per_category - (len(picked) - before), lambda i, a=aspect: facts.sections[i] == a)
    take(RANDOM, 3 * per_category - len(picked), lambda i: True)
    random.Random(shuffle_seed).shuffle(picked)
    return [
        {"fid": facts.fids[i], "source": source, "text": facts.texts[i], "article": facts.title,
         "section": facts.sections[i], "context": facts.contexts[i]}
        for i, source in picked
    ]


def dropped_fids(shown: Iterable[list[dict] | None], *, after: int) -> set[int]:
    """Facts shown in `after` or more earlier banks and never used there."""
    counts: dict[int, int] = {}
    used: set[int] = set()
    for facts in shown:
        for fact in facts or []:
            counts[fact["fid"]] = counts.get(fact["fid"], 0) + 1
            if fact.get("used"):
                used.add(fact["fid"])
    return {fid for fid, count in counts.items() if count >= after and fid not in used}
