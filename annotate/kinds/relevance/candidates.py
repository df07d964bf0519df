"""Relevance items: which knowledge sentences annotators vote on for one wizard turn.

The candidates are the knowledge the wizard was actually shown for that turn (collect
Message.knowledge_shown: [{source, passage, title, sentences}], topic passage first), cut to a few
articles of a few sentences each as in WOW++ (~30 sentences from ~5 articles), plus the sentence
the wizard checked (WoW's gold) when it is not already among them.
"""

from __future__ import annotations

import uuid
from typing import Any

from annotate.services import AnnotationError
from collect.tasktypes.wow.exporter import NO_PASSAGES_USED

# Item keys: uuid5 of (room, message seq) or, for an imported WoW file, of (topic, context).
ITEM_NAMESPACE = uuid.UUID("5b0c3f4e-8f5a-4d8e-9a43-6f1d2a7c9e10")
SOURCES = ("chosen", "partner", "self")
DEFAULTS: dict[str, Any] = {
    "sources": list(SOURCES),
    "max_articles": 5,
    "max_sentences_per_article": 7,
    "max_candidates": 30,
    "include_gold": True,
}


def candidate_options(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    options = {**DEFAULTS, **(overrides or {})}
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise AnnotationError("bad_candidates", f"unknown candidate option(s): {', '.join(unknown)}")
    bad_sources = [s for s in options["sources"] if s not in SOURCES]
    if not options["sources"] or bad_sources:
        raise AnnotationError("bad_candidates", f"sources must be some of {', '.join(SOURCES)}")
    for name in ("max_articles", "max_sentences_per_article", "max_candidates"):
        if not isinstance(options[name], int) or options[name] < 1:
            raise AnnotationError("bad_candidates", f"{name} must be a whole number of at least 1")
    options["include_gold"] = bool(options["include_gold"])
    return options


def gold_text(gold_sentence: dict[str, str] | None) -> str | None:
    if not gold_sentence:
        return None
    key, text = next(iter(gold_sentence.items()))
    return None if key == NO_PASSAGES_USED else text


def relevance_payload(
    *,
    topic: str,
    turns: list[str],
    start_speaker: str,
    shown: list[dict[str, Any]],
    gold_sentence: dict[str, str] | None,
    gold_article: str | None,
    options: dict[str, Any],
) -> dict[str, Any]:
    candidates: list[dict[str, str]] = []
    articles: list[str] = []
    for passage in shown:
        title = passage["title"]
        if passage.get("source", "chosen") not in options["sources"] or title in articles:
            continue
        if len(articles) == options["max_articles"]:
            break
        articles.append(title)
        for sentence in passage["sentences"][: options["max_sentences_per_article"]]:
            if len(candidates) < options["max_candidates"]:
                candidates.append({"article": title, "sentence": sentence})
    gold = gold_text(gold_sentence)
    if options["include_gold"] and gold and all(c["sentence"] != gold for c in candidates):
        article = gold_article or topic
        # Next to its own article, so that the screen's grouping keeps ids in reading order.
        at = max((i + 1 for i, c in enumerate(candidates) if c["article"] == article), default=len(candidates))
        candidates.insert(at, {"article": article, "sentence": gold})
    return {
        "topic": topic,
        "turns": turns,
        "start_speaker": start_speaker,
        "knowledges": [{passage["title"]: list(passage["sentences"])} for passage in shown],
        "gold_sentence": gold_sentence or {NO_PASSAGES_USED: NO_PASSAGES_USED},
        "candidates": candidates,
    }
