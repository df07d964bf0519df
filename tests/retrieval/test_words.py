"""Words by the knowledge source's language: Chinese is segmented into words (jieba) by the TF-IDF
ranker, Chinese indexes and Curiosity's fact scoring; other languages are stemmed.

The Chinese case that tells words from characters: "和服" (a kimono) is one word, while "和服务员"
("with the waiter") holds the same two characters, and the bigram, across a word boundary."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from collect.tasktypes.curiosity.facts import topic_facts_build
from retrieval.index import index_build, index_load
from retrieval.models import Article, Sentence
from retrieval.rankers import Candidate
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.words import content_terms, is_segmented, terms_for
from tests.retrieval.conftest import MakeSource

KIMONO = "她穿着和服参加了朋友的婚礼。"
WAITER = "我和他去服务中心，和服务员聊天，服务很好，和服务台也说了。"


def test_chinese_is_segmented_into_words_without_punctuation() -> None:
    words = terms_for("zh-hans")("我喜欢克里斯托弗·诺兰导演的《盗梦空间》，Inception！")
    assert words == ["我", "喜欢", "克里斯托弗", "诺兰", "导演", "的", "盗梦", "空间", "inception"]
    assert "和服" in terms_for("zh")(KIMONO) and "和服" not in terms_for("zh")(WAITER)
    assert is_segmented("zh-Hant") and not is_segmented("ja") and not is_segmented("en")


def test_other_languages_are_stemmed_and_the_tokenizer_pickles() -> None:
    assert terms_for("en")("Swimming in the rivers") == ["swim", "river"]  # English stop words dropped
    assert terms_for("de")("Die Häuser") == ["die", "haus"]
    assert terms_for("ja")("千と千尋") == ["千", "と", "千", "尋"]  # no segmenter: one token per character
    assert pickle.loads(pickle.dumps(terms_for("zh")))(KIMONO) == terms_for("zh")(KIMONO)


def test_the_tfidf_ranker_matches_chinese_words() -> None:
    candidates = [Candidate("服务", WAITER), Candidate("婚礼", KIMONO)]
    scores = TfidfRanker(language="zh").score(["你穿过和服吗？"], candidates)
    assert scores[1] > 0 and scores[0] == 0
    # By characters, the waiter's sentence shares 和, 服 and the bigram 和服 with the question.
    assert TfidfRanker(language="ja").score(["你穿过和服吗？"], candidates)[0] > 0


@pytest.mark.django_db
def test_a_chinese_index_is_built_and_searched_by_words(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({"婚礼": KIMONO, "服务": WAITER}, slug="zh-kb", language="zh")
    meta = index_build(source_id=source.pk, workers=1)
    assert meta["words"] == "zh"
    index = index_load(index_dir=index_dir, slug="zh-kb")
    titles = dict(Article.objects.values_list("pk", "title"))
    assert [titles[pk] for pk, _ in index.search("和服", k=2)] == ["婚礼"]


@pytest.mark.django_db
def test_an_english_index_is_built_from_stems(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({"Dog": "Dogs bark.", "Cat": "Cats purr."})
    meta = index_build(source_id=source.pk, workers=2)  # the tokenizer travels to the build's worker processes
    assert meta["words"] == "en"
    assert index_load(index_dir=index_dir, slug="kb").search("barking dogs", k=1)


@pytest.mark.django_db
def test_curiosity_facts_are_scored_by_chinese_words(make_source: MakeSource) -> None:
    source = make_source({"和服": "和服是日本的传统服装。"}, slug="zh-facts", language="zh")
    article = Article.objects.get(source=source)
    Sentence.objects.all().delete()
    for position, text in enumerate([WAITER, KIMONO]):
        Sentence.objects.create(article=article, position=position, text=text)
    facts = topic_facts_build(article.pk, language=source.language)
    waiter, kimono = facts.scores("想买一件和服")
    assert kimono > 0 and waiter == 0


def test_the_rerank_ranks_by_the_sources_language(settings) -> None:
    from retrieval.rerank import passages_rank
    from retrieval.tasks import rerank

    settings.RANKER = "tfidf"
    passages = [{"title": "服务", "sentences": [WAITER]}, {"title": "婚礼", "sentences": [KIMONO]}]
    context = ["你穿过和服吗？"]
    scores = {p["title"]: p["scores"][0] for p in passages_rank(context=context, passages=passages, language="zh")}
    assert scores["婚礼"] > 0 and scores["服务"] == 0
    by_task = rerank.apply(kwargs={"context": context, "passages": passages, "language": "zh"}).get()
    assert {p["title"]: p["scores"][0] for p in by_task} == scores
    by_characters = {p["title"]: p["scores"][0] for p in passages_rank(context=context, passages=passages)}
    assert by_characters["服务"] > 0  # the default, English, sees 和 and 服


def test_entity_titles_are_found_in_chinese_text_without_spaces() -> None:
    from retrieval.entities import trie_build

    trie = trie_build(["盗梦空间", "克里斯托弗·诺兰", "盗梦", "New York"])
    # Longest title first; a whole run of Chinese characters is no single word.
    assert trie.find("我喜欢盗梦空间的导演克里斯托弗·诺兰，他住在New York。") == ["盗梦空间", "克里斯托弗·诺兰", "New York"]
    assert trie.find("盗梦这个词") == ["盗梦"]


def test_content_terms_leave_out_the_words_of_chat() -> None:
    assert content_terms("Yes, I agree! That's so cool, thanks.", "en") == set()
    assert content_terms("Did he ever visit Florence?", "en") == {"visit", "florenc"}
    assert content_terms("是的，我同意", "zh") != set()  # another language keeps every term
