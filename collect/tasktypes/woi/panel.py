"""What the wizard's search panel shows, as the frame the page renders, and the check of what the
wizard selected in it.

The panel of the wizard's turn after message `after_seq`:

    {"type": "search_results", "after_seq": 3, "persona": "My favorite book is Dune.\\n...",
     "shown": {"search": 12, "query": "dune novel", "documents": [{"content": [...], "url", "title"}]},
     "latest": {"search": 13, "query": "frank herbert", "status": "pending" | "done" | "failed",
                "error": null | {"code": "search_slow", "message": "..."}}}

`shown` is the turn's latest search that found its documents (null before any): its documents stay
on screen, selectable, while a newer search runs or after it failed; `latest` is the newest search
of the turn, whatever became of it, so the page can say "Searching…" or why it failed. A new turn
starts with an empty panel (the page clears it when a message arrives)."""

from __future__ import annotations

from typing import Any

from collect.errors import ProtocolError
from collect.models import Room
from collect.tasktypes.woi.models import SearchStatus, WoiDialogue, WoiSearch

FRAME = "search_results"
MAX_SELECTED = 200  # sentence selections in one reply


def panel_frame(*, room_id: Any, after_seq: int) -> dict[str, Any]:
    turn = WoiSearch.objects.filter(room_id=room_id, after_seq=after_seq).order_by("-created", "-pk")
    fields = ("pk", "query", "status", "error_code", "error")
    latest = turn.values(*fields).first()
    shown = turn.filter(status=SearchStatus.DONE).values("pk", "query", "documents").first()
    persona = WoiDialogue.objects.filter(room_id=room_id).values_list("persona", flat=True).first() or ""
    return {
        "type": FRAME,
        "after_seq": after_seq,
        "persona": persona,
        "shown": {"search": shown["pk"], "query": shown["query"], "documents": shown["documents"] or []} if shown else None,
        "latest": {
            "search": latest["pk"], "query": latest["query"], "status": latest["status"],
            "error": {"code": latest["error_code"], "message": latest["error"]} if latest["status"] == SearchStatus.FAILED else None,
        } if latest else None,
    }


def persona_frame(persona: str) -> dict[str, Any]:
    """The apprentice's own persona, shown beside their chat."""
    return {"type": "persona", "persona": persona}


def shown_search(room: Room, after_seq: int) -> WoiSearch | None:
    """The search whose documents the wizard's panel shows in the turn after message `after_seq`."""
    return WoiSearch.objects.filter(room=room, after_seq=after_seq, status=SearchStatus.DONE).order_by("-created", "-pk").first()


def selection_parse(room: Room, after_seq: int, frame: dict[str, Any]) -> tuple[WoiSearch | None, list[list[bool]]]:
    """(the search shown, selected_contents) for a wizard's reply whose frame carries
    `"selected": {"search": <the panel's shown search id, or null>, "sentences": [[document,
    sentence], ...]}`, the indexes into that search's documents; an empty list is "no sentence
    used". Raises ProtocolError: no selection, a panel the server no longer shows (a newer search
    has just found its documents), a sentence that is not there."""
    selected = frame.get("selected")
    if not isinstance(selected, dict) or "sentences" not in selected or "search" not in selected:
        raise ProtocolError("selection_required", "Select the sentences your message uses in the search results, or tick “No sentence used”.")
    search_id, pairs = selected["search"], selected["sentences"]
    if search_id is not None and (not isinstance(search_id, int) or isinstance(search_id, bool)):
        raise ProtocolError("bad_frame", "'selected.search' must be a search id or null.")
    if not isinstance(pairs, list) or len(pairs) > MAX_SELECTED or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(i, int) and not isinstance(i, bool) for i in p) for p in pairs
    ):
        raise ProtocolError("bad_frame", f"'selected.sentences' must be a list of at most {MAX_SELECTED} [document, sentence] pairs.")
    shown = shown_search(room, after_seq)
    if (shown.pk if shown else None) != search_id:
        raise ProtocolError("stale_search", "Your search results have just changed: select the sentences again.")
    documents = (shown.documents or []) if shown else []
    matrix = [[not pairs]] + [[False] * len(document["content"]) for document in documents]
    for document, sentence in pairs:
        if not (0 <= document < len(documents) and 0 <= sentence < len(documents[document]["content"])):
            raise ProtocolError("bad_selection", "A selected sentence is not in the search results you were shown.")
        matrix[document + 1][sentence] = True
    return shown, matrix
