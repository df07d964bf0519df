"""The Hugging Face `datasets` export (`export_dataset NAME --format hf --out DIR`): a folder that
`datasets.load_dataset(DIR)` reads offline and `hf upload` publishes as it is (docs/datasets.md).

    DIR/README.md                         the dataset card: the Hub's YAML metadata and the collection
    DIR/<name>/<split>-00000-of-00001.parquet   one config per dataset, the original's splits
    DIR/<companion>/train-00000-of-00001.parquet  a file another app writes beside the dataset's, as
                                          a config of its own (e.g. judgments of the dialogues)
    DIR/conformance.json                  the collected dialogues' statistics beside the published ones

The dataset's own exporter writes its original files into a hidden folder first; the task type's
`hf` hook (collect.registry.Dataset) turns them into rows with declared `datasets.Features`, so that
the rows carry what the original files carry. The Parquet files are written by the `datasets`
library itself (`Dataset.from_list(...).to_parquet`), with the features in their schema metadata
(class labels and nested lists survive the round trip). Splits without a dialogue are left out
(the Hub's loader cannot build a split from an empty file) and the card says so.

Everything is written into a hidden folder beside DIR and renamed into place at the end: a failed
export leaves DIR as it was. DIR must be missing, empty, or an earlier export of this kind (it holds
MARKER), which is then replaced whole.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from collect import registry
from collect.exporters import ExportError, ExportOptions, ExportResult, export_dataset
from collect.models import Assignment, Campaign, Decision, Room, RoomStatus

if TYPE_CHECKING:
    from datasets import Features

MARKER = ".groundwork-hf"  # names the folder as a Groundwork HF export, which a new one may replace
CONFORMANCE_FILE = "conformance.json"
# A pilot's figure "stands out" when it differs from the published one by more than this share of
# it: a rule of thumb for the researcher's eye, not a statistical test (pilots are small).
STANDOUT = 0.25
# The Hub's size_categories (datasets/utils/resources/size_categories.json), by dialogues.
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"))


@dataclass(frozen=True)
class Figure:
    """One line of a conformance report: a statistic of the collected dialogues (`pilot`) beside the
    original dataset's published one, with where it is printed (`source`: paper, table). `published`
    is None where no source gives the figure: it is then shown for the pilot alone."""

    name: str
    pilot: float | None
    published: float | None = None
    source: str = ""
    digits: int = 2

    @property
    def difference(self) -> float | None:
        """(pilot - published) / published, or None when either is missing or published is 0."""
        if self.pilot is None or not self.published:
            return None
        return (self.pilot - self.published) / self.published

    @property
    def stands_out(self) -> bool:
        return self.difference is not None and abs(self.difference) > STANDOUT

    def shown(self, value: float | None) -> str:
        return "—" if value is None else f"{value:,.{self.digits}f}"

    @property
    def pilot_shown(self) -> str:
        return self.shown(self.pilot)

    @property
    def published_shown(self) -> str:
        return self.shown(self.published)

    @property
    def difference_shown(self) -> str:
        return "—" if self.difference is None else f"{self.difference:+.0%}"


@dataclass(frozen=True)
class CardFacts:
    """What a task type tells the dataset card about its dialogues (the collection's own figures
    come from the database). license: the Hub's licence id of the exported text (e.g.
    "cc-by-sa-4.0" where the utterances quote Wikipedia); citation: BibTeX of the original dataset."""

    pretty_name: str
    summary: str
    protocol: str
    roles: tuple[str, ...]
    license: str
    knowledge_license: str
    original: str
    citation: str
    task_categories: tuple[str, ...] = ("text-generation",)
    task_ids: tuple[str, ...] = ("dialogue-modeling",)


@dataclass
class HfDataset:
    """A task type's `hf` hook's answer: the declared features, the rows of each split in the
    original's order (a split with no rows is left out of the folder), turns counted over all rows."""

    features: Features
    splits: dict[str, list[dict[str, Any]]]
    card: CardFacts
    turns: int
    units: str = "dialogues"  # what a row is, as the card counts them ("items" for annotated contexts)


@dataclass
class HfConfig:
    """A further config of the folder, from a file another app writes beside the dataset's
    (collect.registry.hf_companion_register): its rows in one split, `train`."""

    name: str
    features: Features
    rows: list[dict[str, Any]]
    description: str


@dataclass
class Collection:
    """The campaigns an export reads, as the card reports them (counts only, never a worker id)."""

    campaigns: list[tuple[str, str]] = field(default_factory=list)  # (slug, name)
    platforms: list[str] = field(default_factory=list)
    knowledge_sources: list[tuple[str, str]] = field(default_factory=list)  # (name, language)
    workers: int = 0
    pay_per_hour: str = ""  # e.g. "12.40 USD"; "" without reviewed, timed work
    sections: list[str] = field(default_factory=list)  # Markdown lines the card hooks added
    authenticity: Authenticity | None = None
    people: str = "workers"  # who `workers` counts: "annotators" for a dataset of annotations


@dataclass
class Authenticity:
    """The authenticity flags of the exported rooms' human turns (collect.authenticity.signals),
    as the card summarizes them: evidence for a reviewer, never a decision."""

    human_turns: int
    flagged_turns: int  # turns with at least one per-turn flag
    by_kind: list[tuple[str, str, int]]  # (kind, label, flags), most frequent first
    rooms_without_signals: int  # rooms whose signals were never computed (no flag does not mean clean)


def hf_datasets() -> list[str]:
    """The names `export_dataset --format hf` accepts."""
    return registry.dataset_names(exported=True, hf=True)


def export_hf(name: str, out_dir: Path | str, options: ExportOptions | None = None) -> ExportResult:
    """Write dataset `name` as a Hugging Face `datasets` folder into `out_dir` (module docstring).

    ExportError, with nothing written, for: an unknown dataset or one with no `hf` hook, an export
    with no dialogue, campaigns of different knowledge sources, an `out_dir` that is neither empty
    nor an earlier export, and whatever the dataset's exporter refuses."""
    options = options or ExportOptions()
    out = Path(out_dir)
    writer = _hf_writer(name)
    _check_destination(out)
    collection = collection_facts(name, options)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        json_dir, stage = work / "json", work / "out"
        result = export_dataset(name, json_dir, options)
        if result.total == 0:
            raise ExportError(f"nothing to export: {_scope(name, options)} has no finished {'item' if options.job else 'dialogue'}")
        hf: HfDataset = writer(json_dir, result)
        figures = conformance_figures(name, json_dir)
        sizes = _write_parquet(stage / name, hf.features, hf.splits)
        counts = {split: n for split, (n, _) in sizes.items()}
        companions = [c for c in (hook(json_dir) for hook in registry.hf_companions(name)) if c is not None and c.rows]
        more = [(c, _write_parquet(stage / c.name, c.features, {"train": c.rows})) for c in companions]
        (stage / "README.md").write_text(card_text(name, hf, sizes, collection, figures, more), encoding="utf-8")
        report = [{**asdict(f), "difference": f.difference, "stands_out": f.stands_out} for f in figures]
        (stage / CONFORMANCE_FILE).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        (stage / MARKER).write_text(f"{name}\n", encoding="utf-8")
        _swap_into_place(stage, out, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    empty = [split for split in hf.splits if split not in counts]
    notes = list(result.notes) + ([f"splits without a dialogue, left out: {', '.join(empty)}"] if empty else [])
    written = {f"{name}/{split}": n for split, n in counts.items()} | {f"{c.name}/train": len(c.rows) for c in companions}
    return ExportResult(counts=written, skipped_empty=result.skipped_empty, notes=notes)


def conformance_figures(name: str, json_dir: Path) -> list[Figure]:
    """The dataset's conformance report over its original files in `json_dir` ([] without a hook)."""
    report = registry.dataset(name).conformance_report()
    return list(report(json_dir)) if report else []


def campaign_conformance(campaign: Campaign) -> list[Figure] | None:
    """The conformance report of one campaign's finished dialogues (its dashboard's table): None
    when its dataset has no report, [] when the campaign has no finished dialogue yet."""
    name = next((t.dataset for t in registry.task_types() if t.name == campaign.protocol and t.dataset), "")
    if not name or registry.dataset(name).conformance_report() is None:
        return None
    # Splits do not change the figures: every dialogue in train spares the exporters' split-only
    # work (WoW draws candidate responses for valid and test).
    options = ExportOptions(campaigns=(campaign.slug,), holdout_topics=0.0, valid=0.0, test=0.0)
    with tempfile.TemporaryDirectory(prefix=".conformance.") as temp:
        result = export_dataset(name, Path(temp), options)
        return conformance_figures(name, Path(temp)) if result.total else []


def collection_facts(name: str, options: ExportOptions) -> Collection:
    """The card's facts about the campaigns the export reads (every campaign of the dataset's task
    types, or options.campaigns), or the dataset's own `collection` hook's; ExportError when they
    use different knowledge sources."""
    own = registry.dataset(name).collection_facts()
    if own is not None:
        return own(options)
    protocols = [t.name for t in registry.dataset_task_types(name)]
    campaigns = Campaign.objects.filter(slug__in=options.campaigns) if options.campaigns else Campaign.objects.filter(protocol__in=protocols)
    campaigns = campaigns.select_related("knowledge_source").order_by("slug")
    sources = sorted({(c.knowledge_source.name, c.knowledge_source.language) for c in campaigns})
    if len(sources) > 1:
        listed = "; ".join(f"{c.slug}: {c.knowledge_source.name}" for c in campaigns)
        raise ExportError(f"the campaigns use different knowledge sources ({listed}): export them one source at a time with --campaign")
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if options.include_incomplete else [])
    rooms = Room.objects.filter(campaign__in=campaigns, status__in=statuses)
    seats = Assignment.objects.humans().filter(room__in=rooms).exclude(decision__in=[Decision.SOFT_REJECTED, Decision.REJECTED])
    slugs = tuple(c.slug for c in campaigns)
    return Collection(
        campaigns=[(c.slug, c.name) for c in campaigns],
        platforms=sorted({c.get_platform_display() for c in campaigns}),
        knowledge_sources=sources,
        workers=seats.values("worker").distinct().count(),
        pay_per_hour=_pay_per_hour(seats),
        sections=[line for section in registry.card_sections() for line in section(slugs)],
        authenticity=_authenticity(rooms, seats),
    )


def _authenticity(rooms: Any, seats: Any) -> Authenticity:
    from django.db.models import Count

    from collect.models import Message
    from collect.models_authenticity import AuthenticityFlag, FlagKind

    flags = AuthenticityFlag.objects.filter(room__in=rooms, assignment__in=seats)
    counted = flags.values("kind").annotate(n=Count("pk")).order_by("-n", "kind")
    return Authenticity(
        human_turns=Message.objects.filter(room__in=rooms, sender__in=seats).count(),
        flagged_turns=flags.exclude(seq=None).values("room", "seq").distinct().count(),
        by_kind=[(row["kind"], FlagKind(row["kind"]).label if row["kind"] in FlagKind.values else row["kind"], row["n"]) for row in counted],
        rooms_without_signals=rooms.filter(signals_run__isnull=True).count(),
    )


def authenticity_markdown(summary: Authenticity) -> list[str]:
    """The card's authenticity section (docs/authenticity.md): turns flagged, flags by kind."""
    share = f" ({summary.flagged_turns / summary.human_turns:.1%})" if summary.human_turns else ""
    lines = [
        f"{summary.flagged_turns:,} of {summary.human_turns:,} human turns{share} carry at least one flag. "
        "A flag is evidence for a reviewer (typing, pasting, copying, grounding), never a decision: "
        "rejected work is not in this dataset, and flagged turns that were accepted are.", "",
    ]
    if summary.by_kind:
        lines += ["| flag | meaning | flags |", "|---|---|---:|", *(f"| `{kind}` | {label} | {n:,} |" for kind, label, n in summary.by_kind), ""]
    if summary.rooms_without_signals:
        n = summary.rooms_without_signals
        lines += [f"{n:,} dialogue{'' if n == 1 else 's'} had no signals computed: no flag there says nothing.", ""]
    return lines


def _pay_per_hour(seats: Any) -> str:
    """What reviewed work earned per hour: base pay for the outcome plus bonuses (collect.review),
    over the time from taking the seat to its end; "" when nothing was reviewed and timed."""
    from collect.review.selectors import owed_cents

    cents, seconds, currencies = 0, 0.0, set()
    for seat in seats.exclude(decision="").exclude(ended_at=None).select_related("campaign"):
        cents += owed_cents(seat)
        seconds += max(0.0, (seat.ended_at - seat.created).total_seconds())
        currencies.add(seat.campaign.currency)
    if not seconds or len(currencies) != 1:
        return ""
    return f"{cents / 100 / (seconds / 3600):.2f} {currencies.pop()}"


def size_category(dialogues: int) -> str:
    return next((label for limit, label in _SIZES if dialogues < limit), "n>1T" if dialogues > 10**12 else "1M<n<10M")


def _config_info(name: str, features: Features, sizes: dict[str, tuple[int, int]]) -> dict[str, Any]:
    from datasets import DatasetInfo, SplitDict, SplitInfo

    splits = SplitDict(dataset_name=name)
    for split, (n, size) in sizes.items():
        splits.add(SplitInfo(name=split, num_bytes=size, num_examples=n, dataset_name=name))
    return DatasetInfo(features=features, config_name=name, splits=splits)._to_yaml_dict()


def card_text(
    name: str, hf: HfDataset, sizes: dict[str, tuple[int, int]], collection: Collection, figures: list[Figure],
    more: list[tuple[HfConfig, dict[str, tuple[int, int]]]] | None = None,
) -> str:
    """The card: the Hub's YAML metadata (license, language, task categories, size, each config with
    its data files, features and splits; the dataset's own is the default) and a body written from
    the collection. sizes: split -> (rows, bytes of its Arrow table), as `datasets` records a split."""
    from huggingface_hub import DatasetCard, DatasetCardData

    more = more or []
    facts = hf.card
    counts = {split: n for split, (n, _) in sizes.items()}
    dialogues = sum(counts.values())
    infos = [_config_info(name, hf.features, sizes)] + [_config_info(c.name, c.features, s) for c, s in more]
    languages = sorted({language for _, language in collection.knowledge_sources}) or ["en"]
    data = DatasetCardData(
        pretty_name=facts.pretty_name,
        license=facts.license,
        language=languages,
        task_categories=list(facts.task_categories),
        task_ids=list(facts.task_ids),
        size_categories=[size_category(dialogues)],
        configs=[{
            "config_name": name,
            "data_files": [{"split": split, "path": f"{name}/{split}-*.parquet"} for split in counts],
            "default": True,
        }] + [{"config_name": c.name, "data_files": [{"split": "train", "path": f"{c.name}/train-*.parquet"}]} for c, _ in more],
        dataset_info=infos[0] if len(infos) == 1 else infos,
    )
    body = _card_body(name, hf, counts, collection, figures, [c for c, _ in more])
    return str(DatasetCard.from_template(data, template_str="---\n{{ card_data }}\n---\n" + body))


def _card_body(name: str, hf: HfDataset, counts: dict[str, int], collection: Collection, figures: list[Figure], more: list[HfConfig]) -> str:
    facts = hf.card
    dialogues = sum(counts.values())
    lines = [
        f"# {facts.pretty_name}", "",
        f"{facts.summary} Collected with Groundwork in the protocol of {facts.original}; "
        f"`export_dataset {name} --format hf` wrote this folder.", "",
        "## How it was collected", "",
        facts.protocol, "",
        f"- Roles: {', '.join(facts.roles)}",
        f"- Knowledge: {', '.join(f'{n} ({lang})' for n, lang in collection.knowledge_sources) or '—'}; its licence: {facts.knowledge_license}",
        f"- Platform: {', '.join(collection.platforms) or '—'}",
        f"- Campaigns: {', '.join(f'{title} (`{slug}`)' for slug, title in collection.campaigns) or '—'}",
        f"- Pay per hour (reviewed work, base pay and bonuses): {collection.pay_per_hour or 'not known (no reviewed, timed work)'}",
        "",
        "## Size", "",
        f"{dialogues:,} {hf.units}, {hf.turns:,} turns, {collection.workers:,} {collection.people} (counted, never named).", "",
        f"| split | {hf.units} |", "|---|---:|",
        *(f"| {split} | {n:,} |" for split, n in counts.items()), "",
    ]
    empty = [split for split in hf.splits if split not in counts]
    if empty:
        lines += [f"Splits of the original without a dialogue here, left out: {', '.join(empty)}.", ""]
    lines += ["```python", "from datasets import load_dataset", 'dataset = load_dataset("path/to/this/folder")', "```", ""]
    for config in more:
        lines += [
            f"Config `{config.name}` ({len(config.rows):,} rows, split `train`): {config.description} "
            f'`load_dataset("path/to/this/folder", "{config.name}")`.', "",
        ]
    if collection.sections:
        lines += ["## Annotation", "", *collection.sections, ""]
    if collection.authenticity is not None and collection.authenticity.human_turns:
        lines += ["## Authenticity", "", *authenticity_markdown(collection.authenticity)]
    if figures:
        lines += ["## Conformance with the original", "", conformance_markdown(figures), ""]
    lines += ["## Citation of the original dataset", "", "```bibtex", facts.citation.strip(), "```", ""]
    return "\n".join(lines)


def conformance_markdown(figures: list[Figure]) -> str:
    """The conformance report as a Markdown table; a figure that stands out is in bold."""
    rows = ["| statistic | this collection | original (published) | difference | source |", "|---|---:|---:|---:|---|"]
    for f in figures:
        difference = f"**{f.difference_shown}**" if f.stands_out else f.difference_shown
        rows.append(f"| {f.name} | {f.pilot_shown} | {f.published_shown} | {difference} | {f.source or '—'} |")
    return "\n".join(rows) + f"\n\nBold: differs from the published figure by more than {STANDOUT:.0%} of it."


def _hf_writer(name: str) -> Any:
    try:
        dataset = registry.dataset(name)
    except ValueError:
        raise ExportError(f"unknown dataset {name!r}; with a Hugging Face export: {', '.join(hf_datasets())}") from None
    writer = dataset.hf_writer()
    if writer is None:
        raise ExportError(f"dataset {name!r} has no Hugging Face export (--format hf); those with one: {', '.join(hf_datasets())}")
    return writer


def _check_destination(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise ExportError(f"{out} is not empty and holds no earlier Hugging Face export: choose a new or empty folder")


def _scope(name: str, options: ExportOptions) -> str:
    if options.job:
        return f"job {options.job!r}"
    return f"campaign(s) {', '.join(options.campaigns)}" if options.campaigns else f"dataset {name!r}"


def _write_parquet(folder: Path, features: Features, splits: dict[str, list[dict[str, Any]]]) -> dict[str, tuple[int, int]]:
    """Each split's Parquet file in `folder`; split -> (rows, bytes of its Arrow table)."""
    import datasets

    datasets.disable_progress_bars()
    sizes: dict[str, tuple[int, int]] = {}
    folder.mkdir(parents=True)
    for split, rows in splits.items():
        if not rows:
            continue
        table = datasets.Dataset.from_list(rows, features=features, split=datasets.NamedSplit(split))
        table.to_parquet(str(folder / f"{split}-00000-of-00001.parquet"))
        sizes[split] = (len(rows), table.data.nbytes)
    return sizes


def _swap_into_place(stage: Path, out: Path, work: Path) -> None:
    if out.exists():
        # An empty folder or an earlier export: moved aside (inside `work`, removed afterwards) so
        # that the rename below is the only moment the folder changes.
        os.replace(out, work / "previous")
    os.replace(stage, out)
