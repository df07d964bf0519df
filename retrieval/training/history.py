"""Selector: the retraining history for the research page (versions, the live one, recent events)."""

from __future__ import annotations

from typing import Any

from retrieval.training import registry


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
