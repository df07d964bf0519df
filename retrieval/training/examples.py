"""Selectors: ranker training examples (WowppContext, the learned ranker's format) from the work
Groundwork has collected, through the sources that task types and annotation kinds register here
(retrieval knows no chat): e.g. the wizard turns of finished Wizard of Wikipedia dialogues, and the
items of relevance jobs. Contexts that are in the held-out evaluation set (same last two turns)
are left out, and so, when the gate scores on the collection's held-out share
(retrieval/training/heldout.py), is that share."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from django.utils.module_loading import import_string

from retrieval.rankers.wowpp import WowppContext
from retrieval.training.heldout import held_out_by_hash


@dataclass(frozen=True)
class ExampleSource:
    """Where training examples come from.

    name: the key its count has in the training record (e.g. "wizard_turns").
    examples: dotted path of `examples(max_dialogues=None|n, held_only=False) -> Iterable[WowppContext]`
        (a per-dialogue source; `held_only`: only the dialogues in the held-out share) or
        `examples() -> Iterable[WowppContext]`, imported on use, oldest first; ids read
        "<kind>:<dialogue>:<turn>" when `per_dialogue` (the dialogues are counted, and
        `max_dialogues` keeps the first n), else any unique string.
    """

    name: str
    examples: str
    per_dialogue: bool = False


_SOURCES: dict[str, ExampleSource] = {}


def example_source_register(source: ExampleSource) -> None:
    """Called by the apps that collect examples, when Django loads them (AppConfig.ready)."""
    if source.name in _SOURCES:
        raise ValueError(f"training example source {source.name!r} is registered twice")
    _SOURCES[source.name] = source


def example_sources() -> list[ExampleSource]:
    return list(_SOURCES.values())


@dataclass(frozen=True)
class CollectedExamples:
    contexts: list[WowppContext]
    dialogues: int  # dialogues that gave at least one example (per-dialogue sources)
    held_out_skipped: int  # contexts left out because the held-out set has them
    per_source: dict[str, int] = field(default_factory=dict)  # source name -> examples taken from it
    held: list[WowppContext] = field(default_factory=list)  # the collection's held-out share, when asked for

    def counts(self) -> dict[str, int]:
        return {"contexts": len(self.contexts), "dialogues": self.dialogues, **self.per_source, "held_out_skipped": self.held_out_skipped}


def training_examples_collected(
    *, held_out: Sequence[WowppContext] = (), hold_out_share: bool = False, max_dialogues: int | None = None,
    sources: Collection[str] | None = None,
) -> CollectedExamples:
    """Every example collected so far from the registered sources (or only those named in
    `sources`), in registration order, each source's oldest first, less those `held_out` has; with
    `hold_out_share`, less the collection's held-out share too, which comes back as `held`.
    `max_dialogues` keeps the first n dialogues of each per-dialogue source (a learning curve)."""
    gathered: list[tuple[ExampleSource, list[WowppContext]]] = []
    for source in example_sources():
        if sources is not None and source.name not in sources:
            gathered.append((source, []))
            continue
        examples: Callable[..., Iterable[WowppContext]] = import_string(source.examples)
        gathered.append((source, list(examples(max_dialogues=max_dialogues) if source.per_dialogue else examples())))
    held = [c for source, found in gathered for c in found if hold_out_share and held_out_by_hash(c.id, per_dialogue=source.per_dialogue)]
    held_ids = {context.id for context in held}
    excluded = {context_fingerprint(c.turns) for c in (*held_out, *held)}
    contexts: list[WowppContext] = []
    dialogues: set[str] = set()
    per_source: dict[str, int] = {}
    skipped = 0
    for source, found in gathered:
        kept = [c for c in found if c.id not in held_ids and context_fingerprint(c.turns) not in excluded]
        skipped += len(found) - len(kept)
        per_source[source.name] = len(kept)
        contexts += kept
        if source.per_dialogue:
            dialogues.update(context.id.split(":")[1] for context in kept)
    return CollectedExamples(contexts, len(dialogues), skipped, per_source, held)


def held_out_share() -> list[WowppContext]:
    """The collection's held-out share alone, with a relevant sentence (what the research page
    counts: a per-dialogue source reads only its held-out dialogues)."""
    held: list[WowppContext] = []
    for source in example_sources():
        examples: Callable[..., Iterable[WowppContext]] = import_string(source.examples)
        if source.per_dialogue:
            held += examples(held_only=True)
        else:
            held += [c for c in examples() if held_out_by_hash(c.id, per_dialogue=False)]
    return [context for context in held if context.relevant().any()]


def context_fingerprint(turns: Sequence[str]) -> tuple[str, ...]:
    return tuple(" ".join(turn.split()).casefold() for turn in turns[-2:])
