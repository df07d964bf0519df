"""Retrain the learned ranker from the collection, evaluate it on the site's held-out set
(retrieval/training/heldout.py), and promote it only if it is not worse than the live model by more
than the margin on MRR@1 and NDCG@10; roll back.

Whatever goes wrong (no held-out set yet, too few examples, an unreadable held-out file or one with
no relevant sentence, a model that does not load, another run holding the lock) leaves the live
model in place, is logged in one line and is recorded in the events the research page shows."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from retrieval.rankers.config import default_model_dir, ranker_config
from retrieval.rankers.evaluate import ranker_evaluate
from retrieval.rankers.learned import LearnedModelError, LearnedRanker, learned_load, learned_save, learned_train
from retrieval.rankers.wowpp import WowppContext
from retrieval.training import registry
from retrieval.training.examples import training_examples_collected
from retrieval.training.heldout import HELDOUT_MIN_CONTEXTS, HELDOUT_PERCENT, HeldoutSet, heldout_imported, heldout_read
from retrieval.training.settings import retrain_settings

log = logging.getLogger(__name__)
GATED = ("MRR@1", "NDCG@10")
EXAMPLES_FILE = "examples.json"  # beside the model: the ids of the examples it was trained on
SHIPPED = "shipped"


class RetrainFailed(Exception):
    pass


def ranker_retrain(
    *, heldout: Path | None = None, force: bool = False, features: str | None = None, max_dialogues: int | None = None,
) -> dict[str, Any]:
    """One retraining: returns its event ({"outcome": promoted | kept_out | skipped | failed | busy,
    "reason", ...}). `heldout`: a WOW++ file to score this run on instead of the site's held-out set.
    `force` trains whatever the number of new examples (not below min_examples)."""
    try:
        with registry.retrain_lock():
            return _retrain(heldout=heldout, force=force, features=features, max_dialogues=max_dialogues)
    except registry.RetrainBusy as error:
        return _event("busy", f"{error}; the live model stays")


def _retrain(*, heldout: Path | None, force: bool, features: str | None, max_dialogues: int | None) -> dict[str, Any]:
    config = retrain_settings()
    leftovers = registry.staging_leftovers_remove()
    if leftovers:
        log.warning("ranker retrain: removed %d unfinished model(s) of a killed run", len(leftovers))
    try:
        manifest = registry.manifest_read()
        live_version, live_dir = live_model(manifest)
        try:
            live = learned_load(live_dir)
        except LearnedModelError as error:  # the chat processes fall back to the shipped model too
            log.error("ranker retrain: the promoted model does not load (%s); comparing with the shipped one", error)
            live_version, live_dir = live_model({**manifest, "current": None})
            live = learned_load(live_dir)
        given = HeldoutSet(source="file", contexts=heldout_read(heldout), file=heldout) if heldout else heldout_imported()
    except (ValueError, RetrainFailed, ImproperlyConfigured) as error:  # HeldoutError is a ValueError
        return _event("failed", f"{error}; the live model stays")
    examples = training_examples_collected(held_out=given.contexts if given else (), hold_out_share=given is None,
                                           max_dialogues=max_dialogues)
    held = given or HeldoutSet(source="collection", contexts=[c for c in examples.held if c.relevant().any()])
    counts = examples.counts()
    if not held.ready:
        return _event("skipped", f"no held-out set yet: the collection's held-out share ({HELDOUT_PERCENT}% of the rooms, "
                      f"by hash) has {len(held.contexts)} contexts with a checked sentence, {HELDOUT_MIN_CONTEXTS} needed; "
                      "or import one with manage.py import_heldout FILE; the live model stays", training=counts)
    ids = [context.id for context in examples.contexts]
    trained_before = _trained_ids(live_version)
    if counts["contexts"] < config.min_examples:
        return _event("skipped", f"too few examples: {counts['contexts']} collected, at least {config.min_examples} "
                      "needed (GROUNDWORK_RETRAIN_MIN_EXAMPLES); the live model stays", training=counts)
    new = len(set(ids) - trained_before)
    if not force and new < config.min_new:
        return _event("skipped", f"{new} new examples since {live_version}, {config.min_new} needed "
                      "(GROUNDWORK_RETRAIN_MIN_NEW); the live model stays", training=counts)
    semantic = live["semantic"] if features is None else features == "minilm"
    version = registry.version_next(manifest)
    with registry.version_staging() as staging:
        try:
            model = learned_train(examples.contexts, semantic=semantic, meta={
                "version": version, "trained_on": "collected", "training": counts,
            })
            learned_save(model, staging)
            (staging / EXAMPLES_FILE).write_text(json.dumps(ids), encoding="utf-8")
            candidate = learned_load(staging)  # what the chat processes will read, not what is in memory
        except LearnedModelError as error:
            return _event("failed", f"{version}: {error}; the live model stays", training=counts)
        scores = _scores(candidate, held.contexts)
        live_scores = _scores(live, held.contexts)
        promote, why = gate(scores, live_scores, margin=config.margin)
        staging.rename(registry.version_dir(version))
    entry = {
        "version": version, "created_at": registry.now(), "features": "minilm" if semantic else "lexical",
        "training": counts, "heldout": held.describe(),
        "scores": scores, "live": {"version": live_version, "scores": live_scores}, "promoted": promote,
    }
    manifest["versions"].append(entry)
    if promote:
        manifest["current"] = version
        manifest["promotions"].append({"version": version, "at": entry["created_at"], "by": "retrain"})
    registry.manifest_write(manifest)
    outcome = "promoted" if promote else "kept_out"
    return _event(outcome, f"{version} {why}", version=version, scores=_brief(scores),
                  live_scores=_brief(live_scores), live_version=live_version, training=counts)


def gate(scores: dict[str, float], live: dict[str, float], *, margin: float) -> tuple[bool, str]:
    """Promote iff the candidate trails the live model by at most `margin` on each gated metric."""
    worse = [f"{m} {scores[m]:.3f} < live {live[m]:.3f} - {margin}" for m in GATED if scores[m] < live[m] - margin]
    if worse:
        return False, "kept out: " + "; ".join(worse)
    return True, "promoted: " + ", ".join(f"{m} {scores[m]:.3f} (live {live[m]:.3f})" for m in GATED)


def ranker_rollback(*, version: str | None = None) -> dict[str, Any]:
    """Make `version` live ("shipped": the shipped model), by default the version promoted before
    the live one (the shipped model when there is none)."""
    try:
        with registry.retrain_lock():
            manifest = registry.manifest_read()
            target = _rollback_target(manifest, version)
            if target is not None:
                learned_load(registry.version_dir(target))  # a model that does not load never goes live
            previous = manifest["current"]
            manifest["current"] = target
            manifest["promotions"].append({"version": target, "at": registry.now(), "by": "rollback"})
            registry.manifest_write(manifest)
    except registry.RetrainBusy as error:
        return _event("busy", f"rollback refused: {error}; the live model stays")
    except (ValueError, RetrainFailed) as error:
        return _event("failed", f"rollback refused: {error}; the live model stays")
    return _event("rolled_back", f"{previous or SHIPPED} -> {target or SHIPPED}", version=target or SHIPPED)


def live_model(manifest: dict[str, Any]) -> tuple[str, Path]:
    """(version, directory) of the learned model the chat processes use when none is configured."""
    if manifest["current"]:
        return manifest["current"], registry.version_dir(manifest["current"])
    config = ranker_config()
    directory = config.checkpoint if config.bundled and config.checkpoint else default_model_dir(features="auto", device="cpu")
    return f"{SHIPPED}-{directory.name}", directory


def _rollback_target(manifest: dict[str, Any], version: str | None) -> str | None:
    known = [entry["version"] for entry in manifest["versions"]]
    if version is not None:
        if version == SHIPPED:
            return None
        if version not in known:
            raise RetrainFailed(f"no version {version!r} (known: {', '.join(known) or 'none'}, or {SHIPPED})")
        return version
    current = manifest["current"]
    if current is None:
        raise RetrainFailed("the shipped model is already live; nothing to roll back")
    promoted = [e["version"] for e in manifest["versions"] if e.get("promoted")]
    earlier = promoted[: promoted.index(current)] if current in promoted else []
    return earlier[-1] if earlier else None


def _trained_ids(version: str) -> set[str]:
    """The ids of the examples `version` was trained on (none for the shipped model)."""
    try:
        return set(json.loads((registry.version_dir(version) / EXAMPLES_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return set()


def _scores(model: dict[str, Any], contexts: list[WowppContext]) -> dict[str, float]:
    return ranker_evaluate(LearnedRanker(model, device="cpu"), contexts)


def _brief(scores: dict[str, float]) -> dict[str, float]:
    return {m: round(scores[m], 4) for m in GATED}


def _event(outcome: str, reason: str, **extra: Any) -> dict[str, Any]:
    level = logging.INFO if outcome in ("promoted", "kept_out", "rolled_back", "skipped") else logging.ERROR
    log.log(level, "ranker retrain: %s: %s", outcome, reason)
    return registry.event_record(outcome=outcome, reason=reason, **extra)
