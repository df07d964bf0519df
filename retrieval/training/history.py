"""Selectors of the research page: the retraining history (versions, the live one, recent events)
and the held-out set the next run will score on."""

from __future__ import annotations

from typing import Any

from retrieval.training import registry
from retrieval.training.examples import held_out_share
from retrieval.training.heldout import (
    HELDOUT_MIN_CONTEXTS, HELDOUT_PERCENT, HeldoutError, heldout_imported, heldout_imported_at, heldout_path,
)


def ranker_history(*, events: int = 20) -> dict[str, Any]:
    """{"current": version or None (shipped), "versions": newest first, "events": newest first,
    "error": why the manifest could not be read, or ""}."""
    try:
        manifest = registry.manifest_read()
        error = ""
    except ValueError as problem:
        manifest, error = {"current": None, "versions": [], "promotions": []}, str(problem)
    versions = [_row(entry, manifest["current"]) for entry in manifest["versions"]]
    return {
        "current": manifest["current"],
        "versions": versions[::-1],
        "events": registry.events_read(last=events)[::-1],
        "error": error,
    }


def _row(entry: dict[str, Any], current: str | None) -> dict[str, Any]:
    live = entry.get("live", {})
    return {
        **entry, "is_live": entry["version"] == current,
        "mrr1": entry["scores"]["MRR@1"], "ndcg10": entry["scores"]["NDCG@10"],
        "live_version": live.get("version", ""), "live_mrr1": live.get("scores", {}).get("MRR@1"),
        "live_ndcg10": live.get("scores", {}).get("NDCG@10"),
    }


def heldout_overview() -> dict[str, Any]:
    """{"source": "file" | "collection", "ready": whether it can gate, "contexts": with a relevant
    sentence, "file", "imported_at" | "percent", "needed", "error": why an imported file does not read}."""
    try:
        imported = heldout_imported()
    except HeldoutError as error:
        return {"source": "file", "ready": False, "contexts": 0, "file": str(heldout_path()), "error": str(error)}
    if imported is not None:
        return {"source": "file", "ready": True, "contexts": len(imported.contexts), "file": str(imported.file),
                "imported_at": heldout_imported_at(), "error": ""}
    contexts = len(held_out_share())
    return {"source": "collection", "ready": contexts >= HELDOUT_MIN_CONTEXTS, "contexts": contexts,
            "percent": HELDOUT_PERCENT, "needed": HELDOUT_MIN_CONTEXTS, "error": ""}
