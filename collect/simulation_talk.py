"""What the scripted workers of the simulations say (collect/simulation*.py), so that their sample
dialogues read like people talking about the knowledge, not canned lines: a curious partner asks
about a name in the topic's passage or in what the other just said; a knowledgeable one answers
with the sentence they checked, in a conversational frame, and says so when they have nothing; no
one says the same line twice in a dialogue. Deterministic for a given `random.Random`; cheap (no
model, no database)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from retrieval.words import CJK

_HAN = re.compile(f"[{CJK}]")

# A run of capitalised words, possibly joined by "of", "the", "de"… ("Battle of the Coral Sea").
_NAMES = re.compile(
    r"(?:[A-Z][\w'’-]*\w|[A-Z])(?:\s+(?:(?:of(?:\s+the)?|de|da|di|del|von|van)\s+)?(?:[A-Z][\w'’-]*\w|[A-Z]))*"
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+)$")
# Capitalised words that are not names (sentence openers, pronouns, months…).
_NOT_NAMES = set("""
    The A An In On At It Its This That These Those He She They His Her Their Our We I You Your My There Here
    However Also But And Or So Then When While After Before During Since Although Though As If For With From
    By To Of Many Some Most Several Both Each Another Other Such What Which Who Why How Where Yes No Oh Hi
    Well Good Interesting Funny Apparently Ever Plus Hmm Really Wow Neat Cool Huh Thanks Hello Now Let Can Is Do
    January February March April May June July August September October November December Monday Sunday
""".split())
_PARENTHESES = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")
# A demonym or other adjective used before a noun ("a Mexican politician", "the Siamese cat").
_ADJECTIVE = re.compile(r"(?:an|ese|ish|ic)$")
_NEXT_WORD = re.compile(r"\s+([a-z][\w'’-]*)")
_AFTER_NAME = set("is was are were has have had and or in on at to of for with by from as which who that".split())


def _plain(text: str) -> str:
    """The text without parentheses (nested ones too) and doubled spaces."""
    while True:
        shorter = _PARENTHESES.sub("", text)
        if shorter == text:
            return " ".join(text.split()).replace(" ,", ",")
        text = shorter


def names_in(text: str, *, exclude: Iterable[str] = ()) -> list[str]:
    """The names a text mentions, in order, each once: runs of capitalised words, without a
    leading "The", not the sentence openers and pronouns that are capitalised anyway."""
    excluded = [e.lower() for e in exclude if e]
    found: list[str] = []
    text = _plain(text)
    for match in _NAMES.finditer(text):
        words = match.group(0).split()
        if len(words) == 1 and _SENTENCE_START.search(text[: match.start()]) and not re.search(
            rf"[^.!?:;\s]\s+{re.escape(words[0])}\b", text
        ):
            continue  # "Originating in…": capitalised as the sentence's first word, and never elsewhere
        while words and words[0] in _NOT_NAMES:
            words = words[1:]
        following = _NEXT_WORD.match(text, match.end())
        if len(words) == 1 and _ADJECTIVE.search(words[0]) and following and following.group(1) not in _AFTER_NAME:
            continue  # "a Mexican politician"
        name = " ".join(words).rstrip(".")
        name = re.sub(r"['’]s$", "", name)
        head, joined, tail = name.partition(" of ")
        if joined and " " in head and tail.startswith("the "):
            name = head  # "Deep South of the United States": two names, the first kept
        lower = name.lower()
        if len(name) < 3 or name in _NOT_NAMES or name.startswith(("I'", "I’")) or name in found or any(
            lower in e or e in lower for e in excluded
        ):
            continue
        found.append(name)
    return found


def as_topic(topic: str, text: str) -> str:
    """The topic as the text writes it: "association football" where the text does (a common
    noun), "Ancient Egypt" otherwise."""
    lowered = topic[:1].lower() + topic[1:]
    return lowered if lowered != topic and re.search(rf"\b{re.escape(lowered)}\b", text) else topic


# Sentence-initial words that are never names: lower-cased after an opener ("So, the…").
_FUNCTION = set("""
    the a an in on at it its this these those during after before with from by for since many some most there
    they their he she his her although while as when often today much one two three several both each another
""".split())


def start_of(text: str, *, topic: str) -> str:
    """`text` to follow an opener ("So, …"): its first word in lower case when it is a function
    word or a participle or adverb ("Originating in…", "Considered among…"), never a name."""
    first = text.split(" ", 1)[0].strip(",")
    if first.lower() in topic.lower().split():
        return text
    if first.lower() in _FUNCTION or (first[1:2].islower() and first.endswith(("ing", "ed", "ly"))):
        return text[0].lower() + text[1:]
    return text


def as_said(name: str, text: str) -> str:
    """The name as the text says it, with its "the" ("the Deep South", "the Empire of Japan")."""
    return f"the {name}" if re.search(rf"\bthe {re.escape(name)}(?!\s+[A-Z])", text, re.IGNORECASE) else name


def _fresh(rng: random.Random, lines: list[str], said: set[str]) -> str:
    """A line not said yet in this dialogue (the first unsaid one after a random start)."""
    start = rng.randrange(len(lines))
    for offset in range(len(lines)):
        line = lines[(start + offset) % len(lines)]
        if line not in said:
            said.add(line)
            return line
    said.clear()  # every line said: a long dialogue starts over
    said.add(lines[start])
    return lines[start]


ABOUT_NAME = [
    "Oh, {name}? What's the story there?",
    "How does {name} fit in with {topic}?",
    "I've heard of {name} but know little about it. What should I know?",
    "Wait, what's the connection between {name} and {topic}?",
    "Can you tell me more about {name}?",
    "Where does {name} come in?",
    "Is {name} a big part of it?",
]
ABOUT_TOPIC = [
    "I've always been curious about {topic}. What is it, really?",
    "What's {topic} best known for?",
    "How did {topic} get started?",
    "What surprises people most about {topic}?",
    "Is there anything about {topic} that most people get wrong?",
]
REACTIONS = ["Oh, I didn't know that!", "Huh, interesting.", "Wow.", "That makes sense.", "Cool!", "Really?", "Neat."]


def question(
    rng: random.Random, *, topic: str, heard: str, asked: set[str], said: set[str], opening: bool = False,
    subject: str | None = None, passage: str = "",
) -> tuple[str, str | None]:
    """A curious partner's next question and the name it asks about (None: the topic): about a
    name in `heard` (the partner's last message), else in `passage` (the topic's), not asked yet,
    else about the topic; now and then after a short reaction to what was heard. `opening`: the
    dialogue's first line, which names the topic; `subject`: the topic as the dialogue writes it
    (as_topic)."""
    if _HAN.search(heard or topic):
        return _question_zh(rng, topic=topic, heard=heard, asked=asked, said=said)
    names = [n for n in names_in(heard, exclude=[topic]) if n.lower() not in asked]
    if not names and passage:
        names, heard = [n for n in names_in(passage, exclude=[topic]) if n.lower() not in asked], passage
    subject = subject or as_topic(topic, heard)
    if names:
        name = names[0] if rng.random() < 0.6 else rng.choice(names)
        asked.add(name.lower())
        lines = [line for line in ABOUT_NAME if "{topic}" in line] if opening else ABOUT_NAME
        text = _fresh(rng, lines, said).format(name=as_said(name, heard), topic=subject)
    else:
        name, text = None, _fresh(rng, ABOUT_TOPIC, said).format(topic=subject)
    if heard and not opening and rng.random() < 0.4:
        text = f"{_fresh(rng, REACTIONS, said)} {text}"
    return text[0].upper() + text[1:], name


ABOUT_NAME_ZH = ["{name}？能多讲讲吗？", "{name}和{topic}有什么关系？", "我听说过{name}，不过不太了解。", "{name}有什么有意思的地方？"]
ABOUT_TOPIC_ZH = ["{topic}最有名的是什么？", "能给我讲讲{topic}吗？", "关于{topic}，还有什么有意思的？"]
# In Chinese, what a message is about is what comes before its first "的" or "是" ("盗梦空间的导演是…").
_SUBJECT_ZH = re.compile(rf"([{CJK}·A-Za-z0-9]{{2,12}}?)(?:的|是)")


def _question_zh(rng: random.Random, *, topic: str, heard: str, asked: set[str], said: set[str]) -> tuple[str, str | None]:
    names = [m.group(1) for m in _SUBJECT_ZH.finditer(heard) if m.group(1) not in asked and m.group(1) != topic]
    if names:
        asked.add(names[0])
        return _fresh(rng, ABOUT_NAME_ZH, said).format(name=names[0], topic=topic or "这个"), names[0]
    return _fresh(rng, ABOUT_TOPIC_ZH, said).format(topic=topic if _HAN.search(topic) else "这个"), None


OPENERS = ["From what I've read, ", "As far as I know, ", "Apparently ", "I read that ", "Good question! ", "So, ",
           "Well, ", "Here's what I found: ", "Funny you ask: ", "Interesting one. "]
FIRST_OPENERS = ["Hi! ", "Hello! ", "Hi there! "]
FOLLOW_UPS = [" Have you heard of {name}?", " Do you know much about {name}?", " Ever read about {name}?"]
def answer(
    rng: random.Random, sentence: str, *, topic: str, said: set[str], asked: str | None = None, context: str = "",
    first: bool = False,
) -> str:
    """The knowledgeable partner's reply built on `sentence` (the one they checked): its
    parentheses dropped, a long one cut at a clause, in a conversational frame, sometimes with a
    question back about another name it mentions. `context`: what the sentence points back to
    ("It was founded…" after "Kyoto University is…"), said first; `first`: the dialogue's first
    line (no question to answer yet)."""
    text = _plain(sentence)
    if context:
        text = _plain(context) + " " + text
    elif len(text) > 220:
        for cut in ("; ", ", which ", ", while ", ", and "):
            head = text.split(cut)[0]
            if 60 <= len(head) < len(text):
                text = head.rstrip(".,;") + "."
                break
    opener = _fresh(rng, FIRST_OPENERS if first else OPENERS, said)
    if not opener.endswith(("! ", ": ", ". ")):
        text = start_of(text, topic=topic)
    reply = opener + text
    others = names_in(sentence, exclude=[topic, *([asked] if asked else [])])
    if others and rng.random() < 0.3:
        reply += _fresh(rng, FOLLOW_UPS, said).format(name=as_said(rng.choice(others), sentence))
    return reply


NOTHING = [
    "Hmm, I don't have anything on {name} here, sorry. Want to hear more about {topic} instead?",
    "I can't find much about {name} in what I have. Is there something else about {topic} you'd like to know?",
    "Good question, but my notes say nothing about {name}. What else are you curious about?",
    "No idea about {name}, I'm afraid! I could tell you more about {topic}, though.",
]


ALL_SAID = [
    "That's about all I have on {name}, I'm afraid. Anything else about {topic}?",
    "I've told you what I know about {name}. What else would you like to hear?",
]


def nothing(rng: random.Random, *, topic: str, asked: str | None, said: set[str], told: bool = False) -> str:
    """A reply without knowledge: says what was not found (`told`: what there was has been said)
    and offers the topic, never twice alike."""
    return _fresh(rng, ALL_SAID if told and asked else NOTHING, said).format(name=asked or "that", topic=topic)


MORE = ["Also, ", "On top of that, ", "And ", "Plus, "]


def more(rng: random.Random, sentence: str, *, topic: str, said: set[str]) -> str:
    """A second fact added to a reply: "Also, the Shinkansen is…"."""
    return _fresh(rng, MORE, said) + start_of(_plain(sentence), topic=topic)
