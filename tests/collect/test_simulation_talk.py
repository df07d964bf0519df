"""What the scripted workers say (collect/simulation_talk.py): questions about names in what they
heard, answers built on the checked sentence, no line twice in a dialogue, the same words for the
same seed; and the DuConv agent's triples said as sentences."""

from __future__ import annotations

import random

from collect import simulation_talk as talk
from collect.tasktypes.duconv.phrasing import triple_sentence

PASSAGE = (
    "Blues is a music genre and musical form that originated in the Deep South of the United States around the 1860s. "
    "The Battle of the Coral Sea was fought by the Empire of Japan. Originating in Mississippi, it spread north. "
    "The violoncello ( VY-ə-lən-CHEL-oh, Italian pronunciation: [vjolonˈtʃɛllo]) is a bowed string instrument. "
    "A Mexican politician met a Siamese cat in Paris."
)


def test_it_finds_the_names_a_text_mentions() -> None:
    names = talk.names_in(PASSAGE, exclude=["Blues"])
    assert names[:3] == ["Deep South", "Battle of the Coral Sea", "Empire of Japan"]
    assert "Mississippi" in names and "Paris" in names
    # Not a sentence's capitalised first word, a demonym before a noun, or what parentheses hold.
    assert not {"Originating", "Mexican", "Siamese", "Italian", "VY-ə-lən-CHEL-oh"} & set(names)


def test_a_question_asks_about_a_name_heard_and_never_twice() -> None:
    rng, asked, said = random.Random(3), set(), set()
    lines, names = [], []
    for _ in range(6):
        text, name = talk.question(rng, topic="Blues", heard=PASSAGE, asked=asked, said=said)
        lines.append(text)
        names.append(name)
    assert len(set(lines)) == len(lines)
    assert [n for n in names if n] == list(dict.fromkeys(n for n in names if n))  # each name asked once
    assert all(n is None or n in PASSAGE for n in names) and names[0] is not None
    opening, _ = talk.question(random.Random(1), topic="Blues", heard=PASSAGE, asked=set(), said=set(), opening=True)
    assert "Blues" in opening or "blues" in opening


def test_the_same_seed_says_the_same_words() -> None:
    def dialogue(seed: int) -> list[str]:
        rng, asked, said = random.Random(seed), set(), set()
        lines = [talk.question(rng, topic="Blues", heard=PASSAGE, asked=asked, said=said)[0] for _ in range(3)]
        return lines + [talk.answer(rng, s, topic="Blues", said=said) for s in PASSAGE.split(". ")]

    assert dialogue(7) == dialogue(7)
    assert dialogue(7) != dialogue(8)


def test_an_answer_is_the_checked_sentence_in_a_partners_words() -> None:
    said: set[str] = set()
    reply = talk.answer(random.Random(2), "Originating in Mississippi, the blues spread north (1900s).", topic="Blues", said=said)
    assert "originating in Mississippi, the blues spread north." in reply and "(1900s)" not in reply
    with_context = talk.answer(random.Random(2), "It spread north.", topic="Blues", said=set(), context="Blues began in Mississippi.")
    assert "Blues began in Mississippi. It spread north." in with_context


def test_having_nothing_is_said_differently_each_time() -> None:
    rng, said = random.Random(0), set()
    lines = [talk.nothing(rng, topic="Blues", asked="Chicago", said=said) for _ in range(len(talk.NOTHING))]
    assert len(set(lines)) == len(lines) and all("Chicago" in line for line in lines)


def test_chinese_questions_for_chinese_talk() -> None:
    text, name = talk.question(random.Random(0), topic="that", heard="盗梦空间的导演是克里斯托弗·诺兰。", asked=set(), said=set())
    assert name == "盗梦空间" and not any(c.isascii() and c.isalpha() for c in text)


def test_a_triple_is_said_as_a_sentence() -> None:
    assert triple_sentence(["Inception", "directed by", "Christopher Nolan"]) == "Inception was directed by Christopher Nolan."
    assert triple_sentence(["Christopher Nolan", "occupation", "actor"]) == "Christopher Nolan is an actor."
    assert triple_sentence(["Inception", "mood", "dark"]) == "Inception's mood is dark."
    assert triple_sentence(["盗梦空间", "导演", "诺兰"], zh=True) == "盗梦空间的导演是诺兰。"
