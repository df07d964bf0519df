"""One rule for the knowledge a model's reply used, whatever runs the model: the facts it cites
when it cites any it was given, else the facts it shares the most words with."""

from __future__ import annotations

from collect.tasktypes.modelchat.knowledge_use import CITED, OVERLAP, reply_knowledge

SENTENCES = ["Jazz swings.", "Jazz began in New Orleans around the turn of the century."]
WOW = {"history": ["Hi, do you like jazz?"], "topic": "Jazz", "knowledge": [{"title": "Jazz", "sentences": SENTENCES}]}
DUCONV = {"history": [], "goal": [["START", "Inception", "Christopher Nolan"]],
          "knowledge": [["Inception", "director", "Christopher Nolan"], ["Inception", "year", "2010"]]}


def test_a_citation_decides_even_against_the_words() -> None:
    text = "It began in New Orleans around the turn of the century. [1]"
    assert reply_knowledge(text, given=SENTENCES, context=WOW) == (text[:-4], SENTENCES[0], CITED)


def test_without_a_citation_the_sentence_sharing_most_words_is_taken() -> None:
    text = "Jazz began in New Orleans, I think."
    assert reply_knowledge(text, given=SENTENCES, context=WOW) == (text, SENTENCES[1], OVERLAP)


def test_a_citation_of_nothing_given_falls_back_to_the_words() -> None:
    text = "Jazz began in New Orleans, I think. [7]"
    assert reply_knowledge(text, given=SENTENCES, context=WOW) == (text[:-4], SENTENCES[1], OVERLAP)


def test_a_reply_sharing_too_few_words_used_nothing() -> None:
    assert reply_knowledge("I like music.", given=SENTENCES, context=WOW) == ("I like music.", None, "")


def test_duconv_cited_triples_or_the_triples_whose_value_it_names() -> None:
    assert reply_knowledge("Nolan made it in 2010. [1]", given=[0, 1], context=DUCONV) == ("Nolan made it in 2010.", [0], CITED)
    assert reply_knowledge("Inception came out in 2010!", given=[0, 1], context=DUCONV) == ("Inception came out in 2010!", [1], OVERLAP)
