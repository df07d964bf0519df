"""The Wizard of Internet dataset's records (ParlAI 1.7.2's `wizard_of_internet` teachers read
`<datapath>/wizard_of_interent/{train,valid,test}.jsonl`; the folder name is ParlAI's own
spelling): one JSON object per line, `{dialog_id: dialogue}`, as ParlAI's crowdsourcing project
compiles them (compile_results.py):

    dialogue = {"apprentice_persona": str (lines joined by "\\n"), "dialog_history": [entry, ...]}
    entry    = {"action": ACTION, "text": str, "context": {...}}

| action                  | text        | context |
|-------------------------|-------------|---------|
| "Apprentice => Wizard"  | the message | {} |
| "Wizard => SearchAgent" | the query   | {} |
| "SearchAgent => Wizard" | ""          | {"contents": [document, ...]} the search's results |
| "Wizard => Apprentice"  | the message | {"contents": [document, ...] the results on screen, "selected_contents": [[bool], [bool, ...] per document]} |

document = {"content": [sentence, ...], "url": str, "title": str} (the key order of ParlAI's
SearchEngineRetriever). selected_contents[0] is [true] when the reply used no sentence; row i+1
has one boolean per sentence of document i. A search's two entries come right after the message
before it; the teacher takes a reply's query from the entry two before it.

An imported entry may carry keys the format has none for (a timestamp) or list its keys in another
order: its `layout` keeps them, and `laid_out` puts them back, so the file is written as read."""

from __future__ import annotations

from typing import Any

APPRENTICE_TO_WIZARD = "Apprentice => Wizard"
WIZARD_TO_APPRENTICE = "Wizard => Apprentice"
WIZARD_TO_SEARCH = "Wizard => SearchAgent"
SEARCH_TO_WIZARD = "SearchAgent => Wizard"
ACTIONS = (APPRENTICE_TO_WIZARD, WIZARD_TO_APPRENTICE, WIZARD_TO_SEARCH, SEARCH_TO_WIZARD)
PERSONA = "apprentice_persona"
HISTORY = "dialog_history"
DOCUMENT_KEYS = ("content", "url", "title")
FILES = ("train.jsonl", "valid.jsonl", "test.jsonl")
PARLAI_FOLDER = "wizard_of_interent"  # ParlAI's constants.DATASET_NAME, spelled as it is there


def document_out(document: dict[str, Any]) -> dict[str, Any]:
    """A document in the released key order, its other keys (imported) after."""
    return {**{k: document[k] for k in DOCUMENT_KEYS if k in document}, **{k: v for k, v in document.items() if k not in DOCUMENT_KEYS}}


def entry(action: str, text: str, context: dict[str, Any], layout: dict[str, Any] | None = None) -> dict[str, Any]:
    """One dialog_history entry, laid out as its file had it when it was imported."""
    layout = layout or {}
    context = laid_out(context, layout.get("context_keys"), layout.get("context_extra"))
    return laid_out({"action": action, "text": text, "context": context}, layout.get("keys"), layout.get("extra"))


def laid_out(values: dict[str, Any], keys: list[str] | None, extra: list[list[Any]] | None) -> dict[str, Any]:
    """`values` with the `extra` [key, value] pairs, in the order of `keys` (None: as they are)."""
    merged = {**values, **{k: v for k, v in (extra or [])}}
    if not keys:
        return merged
    return {**{k: merged[k] for k in keys if k in merged}, **{k: v for k, v in merged.items() if k not in keys}}


def layout_of(item: dict[str, Any], context_modeled: tuple[str, ...]) -> dict[str, Any] | None:
    """What `entry` needs to write an imported entry back as read (keys it has no column for, an
    order of its own); None when the exporter writes it that way anyway. `context_modeled`: the
    context's keys stored in columns ("contents", "selected_contents")."""
    layout: dict[str, Any] = {}
    modeled = ("action", "text", "context")
    if list(item) != _written_order(item, modeled):
        layout["keys"] = list(item)
    if extra := [[k, v] for k, v in item.items() if k not in modeled]:
        layout["extra"] = extra
    context = item.get("context") or {}
    if list(context) != _written_order(context, context_modeled):
        layout["context_keys"] = list(context)
    if context_extra := [[k, v] for k, v in context.items() if k not in context_modeled]:
        layout["context_extra"] = context_extra
    return layout or None


def _written_order(item: dict[str, Any], modeled: tuple[str, ...]) -> list[str]:
    return [k for k in modeled if k in item] + [k for k in item if k not in modeled]
