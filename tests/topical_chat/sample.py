"""A small Topical-Chat sample written here in the release's format (alexa/Topical-Chat: its keys,
their order, its values and `json.dumps(indent=2)` formatting, checked against the released
valid/test files): three conversations in configurations A, B and C, with what the release has in
odd places (a message with a line break, a tab and trailing spaces, non-ASCII text, several
knowledge sources, an unrated turn, an empty conversation rating, an http URL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

IDS = ("t_7e1d5d1c-2f0a-4b7e-9a55-0c3e8f1b2a10", "t_0b9c3a44-5d6e-4f70-8a1b-2c3d4e5f6a7b", "t_f00dbabe-0000-4000-8000-000000000001")
URLS = (
    "https://www.washingtonpost.com/news/sports/wp/2018/01/01/jazz-and-football/",
    "https://www.washingtonpost.com/entertainment/music/2018/02/02/satchmo/",
    "http://www.washingtonpost.com/lifestyle/2018/03/03/tea-time/",
)


def _turn(message: str, agent: str, sentiment: str, sources: list[str], rating: str) -> dict[str, Any]:
    return {"message": message, "agent": agent, "sentiment": sentiment, "knowledge_source": sources, "turn_rating": rating}


def conversations() -> dict[str, Any]:
    return {
        IDS[0]: {
            "article_url": URLS[0],
            "config": "A",
            "content": [
                _turn("Are you a football fan?", "agent_1", "Curious to dive deeper", ["AS1", "FS1", "FS3", "Personal Knowledge"], "Passable"),
                _turn("yes, I'm. a football fan.\nAre you? ", "agent_2", "Curious to dive deeper", ["FS3"], "Excellent"),
                _turn("I love the café\tnear the stadium, it serves crème brûlée \u2014 and jazz!", "agent_1", "Happy", ["Personal Knowledge"], "Good"),
                _turn("Ha, nice. Bye!", "agent_2", "Neutral", ["FS2"], ""),
            ],
            "conversation_rating": {"agent_1": "Good", "agent_2": ""},
        },
        IDS[1]: {
            "article_url": URLS[1],
            "config": "B",
            "content": [
                _turn("Did you know Louis Armstrong was called Satchmo?", "agent_1", "Surprised", ["FS1"], "Not Good"),
                _turn("I did not. That's disgusting", "agent_2", "Disgusted", ["AS2", "AS4"], "Poor"),
                _turn("Why?", "agent_1", "Angry", ["Personal Knowledge"], "Excellent"),
            ],
            "conversation_rating": {"agent_1": "Passable", "agent_2": "Not Good"},
        },
        IDS[2]: {
            "article_url": URLS[2],
            "config": "C",
            "content": [
                _turn("Tea or coffee?", "agent_1", "Fearful", ["FS2"], "Good"),
                _turn("Tea, always.", "agent_2", "Sad", ["FS1", "FS2"], "Excellent"),
            ],
            "conversation_rating": {"agent_1": "Excellent", "agent_2": "Good"},
        },
    }


def _section(entity: str, wiki_field: str, wiki: Any, facts: list[Any]) -> dict[str, Any]:
    return {"entity": entity, wiki_field: wiki, "fun_facts": facts}


def _facts(prefix: str, n: int) -> list[str]:
    return [f"{prefix} fun fact {i}." for i in range(1, n + 1)]


def post_build() -> dict[str, Any]:
    short, summ = "shortened_wiki_lead_section", "summarized_wiki_lead_section"
    article = lambda url, headline: {"url": url, "headline": headline, "AS1": "First part.", "AS2": "Second part, with \u00fcmlauts.",  # noqa: E731
                                     "AS3": "Third part.", "AS4": "Fourth part."}
    return {
        IDS[0]: {
            "config": "A",
            "agent_1": {f"FS{i}": _section(e, short, f"{e} is a thing.", _facts(e, 5)) for i, e in enumerate(("Football", "Reading", "Coffee"), 1)},
            "agent_2": {f"FS{i}": _section(e, short, f"{e} is a thing.", _facts(e + " other", 4)) for i, e in enumerate(("Football", "Reading", "Coffee"), 1)},
            "article": article(URLS[0], "Jazz and football"),
        },
        IDS[1]: {
            "config": "B",
            "agent_1": {f"FS{i}": _section(e, short, f"{e} is a person.", _facts(e, 5)) for i, e in enumerate(("Louis Armstrong", "Trumpet", "Jazz"), 1)},
            "agent_2": {f"FS{i}": _section(e, summ, f"{e} is a person.\nMore about {e}.", _facts(e, 5)) for i, e in enumerate(("Louis Armstrong", "Trumpet", "Jazz"), 1)},
            "article": article(URLS[1], "Satchmo"),
        },
        IDS[2]: {
            "config": "C",
            "agent_1": {f"FS{i}": _section(e, short, f"{e} is a drink.", _facts(e, 5)) for i, e in enumerate(("Tea", "Coffee", "Milk"), 1)},
            "agent_2": {f"FS{i}": _section(e, short, f"{e} is a drink.", _facts(e, 5)) for i, e in enumerate(("Tea", "Coffee", "Milk"), 1)},
            "article": {"url": URLS[2]},
        },
    }


def pre_build() -> dict[str, Any]:
    """The release as shipped: Wikipedia texts and fun facts by id (build.py fetches them)."""
    result = {}
    for n, (conversation_id, built) in enumerate(post_build().items()):
        result[conversation_id] = {"article_url": URLS[n], "config": built["config"]}
        for agent in ("agent_1", "agent_2"):
            result[conversation_id][agent] = {
                key: {"entity": s["entity"], [f for f in s if f.endswith("_section")][0]: 81000 + 10 * n + int(key[2:]),
                      "fun_facts": [f"t3_{n}{key}{i}" for i in range(len(s["fun_facts"]))]}
                for key, s in built[agent].items()
            }
    return result


def write(root: Path, split: str = "valid_freq", *, build: str | None = "post-build") -> Path:
    """The sample as the release lays it out under `root`; returns the conversations file."""
    path = root / "conversations" / f"{split}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversations(), indent=2), encoding="ascii")
    if build is not None:
        sets = root / "reading_sets" / build / f"{split}.json"
        sets.parent.mkdir(parents=True, exist_ok=True)
        sets.write_text(json.dumps(post_build() if build == "post-build" else pre_build(), indent=2), encoding="ascii")
    return path
