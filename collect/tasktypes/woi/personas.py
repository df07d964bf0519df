"""The apprentice's persona, written before the chat as in the Wizard of Internet collection
(Komeili et al., 2022, §3; ParlAI's crowdsourcing project): most apprentices fill in a template,
"My favorite <topic> is <item>." with a topic from two bundles offered ("book, author", "sports
team, athlete", ...), and the rest pick one of three curated personas; either adds a sentence of
their own to refine it. A curated persona marked "*" needs a place: "I live in <location>." is put
before it. `apprentice_persona` is the lines joined by newlines:

    My favorite book is Dune.\\nI reread it every summer on the beach.
    I live in Lisbon, Portugal.\\nI like to go to the farmers market on weekends.\\nI buy ...

The topic bundles are the original's; the curated personas and the locations are Groundwork's own
(the original's lists were not released): a campaign sets its own in protocol_config.persona.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

NEEDS_LOCATION = "*"
MIN_DETAIL_CHARS = 20  # the original's PERSONA_EXPANSION_MIN_LEN_CHAR
MAX_ITEM_CHARS = 100
MAX_DETAIL_CHARS = 300
TEMPLATE_BUNDLES_SHOWN = 2
CURATED_SHOWN = 3

TOPIC_BUNDLES: tuple[tuple[str, ...], ...] = (
    ("fashion brand", "fashion designer", "clothing type"),
    ("book", "author"),
    ("artist", "music band", "song", "singer"),
    ("tv show", "movie", "actor", "director"),
    ("sports team", "athlete"),
    ("hobby", "game"),
    ("item to buy", "item recently bought"),
)

CURATED: tuple[str, ...] = (
    "*I like to go to the farmers market on weekends.",
    "*I am looking for a new place to go running.",
    "*I want to try every coffee shop in my city.",
    "*I volunteer at the local animal shelter.",
    "I love to cook food from other countries.",
    "I am learning to play the piano.",
    "I like to watch the stars at night.",
    "I have two cats and a dog.",
    "I am saving money for a trip around the world.",
    "I grow tomatoes and herbs on my balcony.",
)

LOCATIONS: tuple[str, ...] = (
    "Austin, Texas", "Lisbon, Portugal", "Osaka, Japan", "Nairobi, Kenya", "Toronto, Canada",
    "Melbourne, Australia", "Edinburgh, Scotland", "Denver, Colorado", "Seville, Spain", "Chicago, Illinois",
)


class PersonaError(ValueError):
    """The apprentice's persona form is not filled in as asked; says what to change."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Written:
    text: str  # apprentice_persona
    key: str  # the persona without its refinement, normalised: how often it was used is counted by it
    headline: str  # the line the chat shows as its topic


def persona_form(config: Any, rng: random.Random) -> dict[str, Any]:
    """What the apprentice is offered (PersonaConfig `config`): a template with the topics of two
    bundles, or three curated personas, each with the place it needs (None if none)."""
    if rng.random() < config.template_share:
        bundles = rng.sample(list(config.topics), k=min(TEMPLATE_BUNDLES_SHOWN, len(config.topics)))
        return {"mode": "template", "topics": [topic for bundle in bundles for topic in bundle]}
    choices = rng.sample(list(config.curated), k=min(CURATED_SHOWN, len(config.curated)))
    return {"mode": "curated", "choices": [
        {"text": c.removeprefix(NEEDS_LOCATION).strip(), "location": rng.choice(config.locations) if c.startswith(NEEDS_LOCATION) else None}
        for c in choices
    ]}


def persona_write(form: dict[str, Any], *, choice: str, item: str, detail: str) -> Written:
    """The persona from the apprentice's answers to `form`: `choice` (a template topic, or a
    curated persona's text), `item` (the template's "is ..."; ignored for a curated one) and
    `detail`, the sentence that refines it. Raises PersonaError."""
    if len(detail) < MIN_DETAIL_CHARS:
        raise PersonaError("persona_too_short", f"Add a sentence of at least {MIN_DETAIL_CHARS} characters to refine your persona.")
    if len(detail) > MAX_DETAIL_CHARS:
        raise PersonaError("bad_persona", f"The sentence that refines your persona is longer than {MAX_DETAIL_CHARS} characters.")
    if form.get("mode") == "template":
        if choice not in form.get("topics", []):
            raise PersonaError("bad_persona", "Choose one of the topics offered to you.")
        if not item:
            raise PersonaError("bad_persona", f"Say what your favorite {choice} is.")
        if len(item) > MAX_ITEM_CHARS:
            raise PersonaError("bad_persona", f"Your favorite {choice} is longer than {MAX_ITEM_CHARS} characters.")
        headline = f"My favorite {choice} is {item.rstrip('.')}."
        return Written(text=f"{headline}\n{detail}", key=persona_key(headline), headline=headline)
    picked = next((c for c in form.get("choices", []) if c.get("text") == choice), None)
    if picked is None:
        raise PersonaError("bad_persona", "Choose one of the personas offered to you.")
    lines = ([f"I live in {picked['location']}."] if picked.get("location") else []) + [choice, detail]
    return Written(text="\n".join(lines), key=persona_key(choice), headline=choice)


def persona_key(text: str) -> str:
    """Lowercase words without punctuation: "My favorite book is Dune!" and "my favorite book is
    dune" are one persona (the original's rule)."""
    return " ".join(re.sub(r"[.,;!?]", " ", text.lower()).split())[:200]
