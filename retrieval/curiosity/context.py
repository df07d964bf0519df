"""What a fact needs to be read on its own. A fact is one sentence of an article; one whose first
words point back to an earlier sentence ("It is popular as a pet…", "These include…", "Further
south, its range extends…", "During this period, …", "Founded in 1897, it is…") has no referent
when shown alone, as Curiosity's fact bank shows it. Its context is the sentence before it in the
same section and paragraph (and that one's, when it points back too), or, for a paragraph's first
sentence, the article's title: display only, the fact's text stays its own.

The test reads English; a source in another language gets no context.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|\d[\d,.]*\d|\d|,")  # "3,237,500" is one word, not a clause's end
# A sentence opening with one of these leans on what came before.
OPENERS = {
    "it", "its", "it's", "they", "their", "them", "he", "his", "him", "she", "her", "this", "these", "those",
    "such", "both", "another", "also", "however", "moreover", "furthermore", "additionally", "nevertheless",
    "nonetheless", "thus", "therefore", "hence", "consequently", "meanwhile", "afterwards", "afterward",
    "subsequently", "instead", "likewise", "similarly", "besides", "but", "and", "or", "yet", "so", "then",
    "further", "farther", "latter", "former", "here", "there's", "that's", "accordingly", "again", "still", "other",
    "others", "thereafter",
}
PRONOUNS = {"it", "its", "they", "their", "them", "he", "his", "him", "she", "her", "this", "these", "those", "such"}
SUBJECTS = {"it", "its", "they", "their", "he", "his", "she", "her", "this", "these", "those"}
EARLY_SUBJECTS = {"it", "they", "he", "she"}
DEMONSTRATIVES = {"this", "these", "those", "such", "thereafter", "afterwards", "subsequently", "meanwhile"}
# "The city…", "The family is…": a noun standing for something named before.
REFERRING_NOUNS = set("""
    city town village country nation state island islands region province area capital empire kingdom dynasty
    republic war battle conflict revolution event events company firm group band film book work river sea lake
    mountain volcano peninsula strait desert forest party government term word name concept species family genus
    fruit plant tree animal bird fish breed disease building team club church temple cathedral palace castle bridge
    museum monument school university institution organization organisation agency site population economy latter
    former same following movement style genre form language people tradition practice festival game sport album
    song series novel poem painting treaty law act program programme project mission ship king queen emperor ruler
    tribe cuisine dish drink food product system network colony territory district county prefecture period era
    duchy principality
    two three four pair couple country's city's
""".split())
CLAUSE_WORDS = 24  # the first comma further in than this ends no opening clause


def points_back(text: str) -> bool:
    """Whether the sentence's first words refer to something said before it."""
    words = WORD.findall(text)
    lower = [w.lower() for w in words]
    if not lower:
        return False
    if lower[0] in OPENERS or _refers(words, 0):
        return True
    if EARLY_SUBJECTS & set(lower[1:4]) and "," not in lower[:4]:
        return True  # "In 1945 it became…"
    comma = lower.index(",") if "," in lower[:CLAUSE_WORDS] else None
    if comma is None:
        return False
    named_before = False
    for k in range(comma):
        if lower[k] in DEMONSTRATIVES or (lower[k] in PRONOUNS and not named_before):
            return True  # "During this period, …", "At its height, …"
        if lower[k] == "the" and k + 1 < comma and lower[k + 1] in ("same", "latter", "former", "following"):
            return True  # "On the same date, …"
        # After a name, "his", "its"… refer to that name ("Emperor Meiji … until his death, …").
        named_before = named_before or (k > 0 and words[k][0].isupper())
    if _refers(words, comma + 1) or (comma + 1 < len(lower) and lower[comma + 1] in SUBJECTS):
        return True
    # An opening phrase of several parts ("Bounded by X on the south, Y on the west, …, it shares…",
    # "Now widely accepted to have been made in England, perhaps as a gift, it tells…").
    commas = [k for k, w in enumerate(lower[: 2 * CLAUSE_WORDS]) if w == ","]
    return any(k + 1 < len(lower) and lower[k + 1] in EARLY_SUBJECTS for k in commas)


def _refers(words: list[str], k: int) -> bool:
    """ "The city …", "The Duchy belonged…" at k, but not "The city of Rome…" or "The capital
    Windhoek…" (the name follows)."""
    if k + 2 >= len(words) or words[k].lower() != "the" or words[k + 1].lower() not in REFERRING_NOUNS:
        return False
    after = words[k + 2]
    return after.lower() not in ("of", ",") and not after[0].isupper()


@dataclass(frozen=True)
class Line:
    """One sentence of an article, in order: its section ("" = the lead) and paragraph (None when
    the source does not say)."""

    section: str
    paragraph: int | None
    text: str


def contexts(lines: Sequence[Line], *, title: str, language: str = "en") -> list[str]:
    """For each sentence, the context it is shown after ("" when it reads on its own): the one or
    two sentences before it in its section and paragraph, else the title when the sentence does
    not name it."""
    if not language.lower().startswith("en"):
        return ["" for _ in lines]
    result = []
    for i, line in enumerate(lines):
        if not points_back(line.text):
            result.append("")
            continue
        before = []
        j = i - 1
        while j >= 0 and (lines[j].section, lines[j].paragraph) == (line.section, line.paragraph) and len(before) < 2:
            before.insert(0, lines[j].text)
            if not points_back(lines[j].text):
                break
            j -= 1
        if before:
            result.append(" ".join(before))
        else:
            result.append("" if title in line.text else title)
    return result
