"""The Wizard of Internet release's format, as the tests check it (collect/tasktypes/woi/layout.py
describes it): a sample in that format, written by hand the way the release's lines are written,
and a check of any file against the format's keys and types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ACTIONS = ("Apprentice => Wizard", "Wizard => Apprentice", "Wizard => SearchAgent", "SearchAgent => Wizard")
DOCUMENT_KEYS = ["content", "url", "title"]


def document(title: str, *sentences: str) -> dict[str, Any]:
    return {"content": list(sentences), "url": f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}", "title": title}


FUJI = document("Mount Fuji", "Mount Fuji is the highest mountain in Japan.", "It is an active stratovolcano.", "Its last eruption was in 1707.")
HIKING = document("Hiking", "Hiking is a long, vigorous walk.", "It is usually done on trails in the countryside.")
FUJI_NEWS = document("Fuji climbing season", "The climbing season runs from early July to early September.", "Huts on the trails offer rest.")
ONSEN = document("Onsen", "An onsen is a Japanese hot spring.", "Many are found near volcanoes.")
CAFE = document("Café", "A café serves coffee and light meals.", "Cafés were meeting places in Vienna — “Kaffeehäuser”.")


def entry(action: str, text: str, context: dict[str, Any]) -> dict[str, Any]:
    return {"action": action, "text": text, "context": context}


def sample_dialogues() -> list[dict[str, Any]]:
    """Two dialogues: searches before a reply that selects sentences from two documents, two
    searches in one turn, a reply that used no sentence, one with no search at all, non-ASCII text."""
    first = {
        "apprentice_persona": "I live in Osaka, Japan.\nI like to go hiking on weekends.\nI want to climb Mount Fuji next summer.",
        "dialog_history": [
            entry("Apprentice => Wizard", "Hi! I'd love to climb Mount Fuji one day.", {}),
            entry("Wizard => SearchAgent", "mount fuji climbing", {}),
            entry("SearchAgent => Wizard", "", {"contents": [FUJI, HIKING]}),
            entry("Wizard => SearchAgent", "mount fuji climbing season", {}),
            entry("SearchAgent => Wizard", "", {"contents": [FUJI_NEWS, FUJI]}),
            entry("Wizard => Apprentice", "The season runs July to September, and it is Japan's highest peak!",
                  {"contents": [FUJI_NEWS, FUJI], "selected_contents": [[False], [True, False], [True, False, False]]}),
            entry("Apprentice => Wizard", "Is it safe? It's a volcano, right?", {}),
            entry("Wizard => Apprentice", "I think it is quiet these days.",
                  {"contents": [], "selected_contents": [[True]]}),
            entry("Apprentice => Wizard", "Good to know. Are there hot springs nearby?", {}),
            entry("Wizard => SearchAgent", "onsen near mount fuji", {}),
            entry("SearchAgent => Wizard", "", {"contents": [ONSEN, FUJI]}),
            entry("Wizard => Apprentice", "Yes, onsen are common near volcanoes.",
                  {"contents": [ONSEN, FUJI], "selected_contents": [[False], [False, True], [False, False, False]]}),
        ],
    }
    second = {
        "apprentice_persona": "My favorite drink is coffee.\nI try a new café every week — in Wien too.",
        "dialog_history": [
            entry("Wizard => SearchAgent", "café history vienna", {}),
            entry("SearchAgent => Wizard", "", {"contents": [CAFE]}),
            entry("Wizard => Apprentice", "Vienna's cafés were famous meeting places!",
                  {"contents": [CAFE], "selected_contents": [[False], [False, True]]}),
            entry("Apprentice => Wizard", "Yes! I loved the Kaffeehäuser there.", {}),
            entry("Wizard => Apprentice", "What did you order?", {"contents": [], "selected_contents": [[True]]}),
            entry("Apprentice => Wizard", "A melange, of course ☕", {}),
        ],
    }
    return [{"2_a3f9c0d1": first}, {"7_b82e11aa": second}]


def sample_write(path: Path) -> Path:
    """The sample, one `json.dumps` line per dialogue, as the release's lines are written."""
    path.write_text("".join(json.dumps(line) + "\n" for line in sample_dialogues()), encoding="utf-8")
    return path


def schema_problems(path: Path) -> list[str]:
    """Where the file departs from the released format's keys and types (empty: none)."""
    problems = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = json.loads(raw)
        where = f"line {number}"
        if not isinstance(line, dict) or len(line) != 1 or not isinstance(next(iter(line)), str):
            problems.append(f"{where}: not {{dialog_id: dialogue}}")
            continue
        dialogue = next(iter(line.values()))
        if list(dialogue)[:2] != ["apprentice_persona", "dialog_history"] or set(dialogue) - {"apprentice_persona", "dialog_history", "incomplete", "end_reason"}:
            problems.append(f"{where}: keys {list(dialogue)}")
        if not isinstance(dialogue.get("apprentice_persona"), str):
            problems.append(f"{where}: apprentice_persona is not a string")
        history = dialogue.get("dialog_history")
        for index, item in enumerate(history if isinstance(history, list) else []):
            problems += [f"{where}, dialog_history[{index}]: {p}" for p in _entry_problems(item, history[index - 1] if index else None)]
    return problems


def _entry_problems(item: Any, before: Any) -> list[str]:
    if not isinstance(item, dict) or list(item) != ["action", "text", "context"]:
        return [f"keys {list(item) if isinstance(item, dict) else type(item).__name__}"]
    action, text, context = item["action"], item["text"], item["context"]
    problems = [] if action in ACTIONS and isinstance(text, str) and isinstance(context, dict) else ["action/text/context types"]
    if action in ("Apprentice => Wizard", "Wizard => SearchAgent"):
        problems += [] if context == {} else ["context is not {}"]
    elif action == "SearchAgent => Wizard":
        if not (isinstance(before, dict) and before.get("action") == "Wizard => SearchAgent"):
            problems.append("results that do not follow a query")
        problems += [] if text == "" and list(context) == ["contents"] else ["results' text or context keys"]
        problems += _documents_problems(context.get("contents"))
    elif action == "Wizard => Apprentice":
        if not text:
            problems.append("an empty reply (the teacher refuses it)")
        if list(context) != ["contents", "selected_contents"]:
            return problems + [f"context keys {list(context)}"]
        documents, selected = context["contents"], context["selected_contents"]
        problems += _documents_problems(documents)
        rows_ok = isinstance(selected, list) and len(selected) == len(documents) + 1 and selected[0] in ([True], [False])
        rows_ok = rows_ok and all(
            isinstance(row, list) and all(isinstance(b, bool) for b in row) and len(row) == len(d["content"])
            for row, d in zip(selected[1:], documents)
        )
        problems += [] if rows_ok else ["selected_contents does not fit the documents"]
        if rows_ok and selected[0] == [True] and any(any(row) for row in selected[1:]):
            problems.append("sentences selected beside 'no sentence used'")
    return problems


def _documents_problems(documents: Any) -> list[str]:
    if not isinstance(documents, list):
        return ["contents is not a list"]
    return [
        f"document {i}: {d if not isinstance(d, dict) else list(d)}" for i, d in enumerate(documents)
        if not (isinstance(d, dict) and list(d) == DOCUMENT_KEYS and isinstance(d["url"], str) and isinstance(d["title"], str)
                and isinstance(d["content"], list) and all(isinstance(s, str) for s in d["content"]))
    ]
