"""The Hugging Face `datasets` export (`export_dataset NAME --format hf`): `load_dataset` reads the
folder offline and its rows are the JSON export's; the card's YAML passes the Hub's metadata rules
as the `huggingface_hub` and `datasets` libraries check them offline; the conformance figures equal
those computed here independently; bad requests leave nothing behind."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import datasets
import huggingface_hub
import pytest
from django.core.management import CommandError, call_command
from huggingface_hub import DatasetCard

from collect.exporters import ExportOptions, export_dataset
from collect.exporters.hf import MARKER, export_hf
from collect.models import Assignment, Decision, Outcome
from collect.tasktypes.wow.exporter import FILES, split_for
from collect.tasktypes.wow.hf import FEATURES, dialogue_from_row
from tests.collect.test_export_wow import wow_room
from tests.factories import make_campaign, make_source
from tests.hf_card import assert_valid_card

pytestmark = pytest.mark.django_db
WIDE = dict(holdout_topics=0.4, valid=0.2, test=0.2)  # a few rooms fill every split
TOPICS = ["Blues", "Jazz", "Guitar", "Tea", "Coffee", "Cat", "Dog", "Mount Everest", "Time travel", "Science fiction"]


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing here may reach the Hub: both libraries refuse any request when offline.
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


@pytest.fixture
def campaign():
    """20 rooms over 10 topics, and more until every split has one (room ids are random)."""
    campaign = make_campaign(slug="hf-wow", name="HF pilot", protocol="wow")
    splits: set[str] = set()
    n = 0
    while n < 20 or len(splits) < len(FILES):
        topic = TOPICS[n % len(TOPICS)]
        room = wow_room(campaign, topic=topic, marker=f"room {n} talks about {topic.lower()}", messages=5 + n % 4)
        splits.add(split_for(topic, room.pk, ExportOptions(**WIDE)))
        n += 1
        assert n < 200
    return campaign


def load(out: Path, tmp_path: Path) -> datasets.DatasetDict:
    return datasets.load_dataset(str(out), cache_dir=str(tmp_path / "hf-cache"))


def json_files(tmp_path: Path, **options: Any) -> dict[str, list[dict[str, Any]]]:
    out = tmp_path / "json"
    export_dataset("wow", out, ExportOptions(**options))
    return {file.removesuffix(".json"): json.loads((out / file).read_text(encoding="utf-8")) for file in FILES}


def test_load_dataset_reads_the_export_offline_and_its_rows_are_the_json_exports(campaign, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    result = export_hf("wow", out, ExportOptions(**WIDE))
    expected = json_files(tmp_path, **WIDE)
    assert all(expected.values()), "every split has a dialogue"

    loaded = load(out, tmp_path)
    assert list(loaded) == list(expected)  # the original's splits, in its order
    for split, dialogues in expected.items():
        assert loaded[split].features == FEATURES
        assert [dialogue_from_row(row) for row in loaded[split]] == dialogues, split
    assert result.counts == {f"wow/{split}": len(d) for split, d in expected.items()}
    assert loaded["train"].features["dialog"].feature["speaker"].names == ["0_Wizard", "1_Apprentice", "0_Apprentice", "1_Wizard"]
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "README.md", "conformance.json", "wow"])
    assert sorted(p.name for p in (out / "wow").iterdir()) == sorted(f"{s}-00000-of-00001.parquet" for s in expected)


def test_the_card_passes_the_hubs_metadata_rules_offline(campaign, tmp_path: Path) -> None:
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs

    out = tmp_path / "hf"
    export_hf("wow", out, ExportOptions(**WIDE))
    assert_valid_card(out)
    card = DatasetCard.load(out / "README.md")  # ValueError for YAML that is no mapping
    data = card.data
    assert data.license == "cc-by-sa-4.0"
    assert data.language == ["en"]
    assert data.task_categories == ["text-generation"] and data.task_ids == ["dialogue-modeling"]
    resources = Path(datasets.__file__).parent / "utils" / "resources"
    assert data.size_categories == ["n<1K"]
    assert set(data.size_categories) <= set(json.loads((resources / "size_categories.json").read_text()))
    assert set(data.language) <= set(json.loads((resources / "languages.json").read_text()))
    configs = MetadataConfigs.from_dataset_card_data(data)  # checks each config's data_files
    assert list(configs) == ["wow"] and configs.get_default_config_name() == "wow"
    infos = DatasetInfosDict.from_dataset_card_data(data)
    assert infos["wow"].features == FEATURES
    expected = json_files(tmp_path, **WIDE)
    assert {s.name: s.num_examples for s in infos["wow"].splits.values()} == {k: len(v) for k, v in expected.items()}

    text = card.text
    dialogues = sum(len(v) for v in expected.values())
    turns = sum(len(d["dialog"]) for v in expected.values() for d in v)
    assert f"{dialogues:,} dialogues, {turns:,} turns, {2 * dialogues} workers" in text
    assert "HF pilot (`hf-wow`)" in text and "Platform: In-house" in text
    assert "@inproceedings{dinan2019wizard" in text
    assert "| turns per dialogue |" in text and "Dinan et al. 2019" in text


def test_the_conformance_figures_equal_those_computed_here(campaign, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    export_hf("wow", out, ExportOptions(**WIDE))
    figures = {f["name"]: f for f in json.loads((out / "conformance.json").read_text(encoding="utf-8"))}
    dialogues = [d for v in json_files(tmp_path, **WIDE).values() for d in v]

    # The room helper's utterances are "room N talks about TOPIC says I": every word counted by hand.
    texts = [t["text"] for d in dialogues for t in d["dialog"]]
    tokens = [text.lower().split() for text in texts]
    wizard = [t for d in dialogues for t in d["dialog"] if "Wizard" in t["speaker"]]
    no_sentence = [t for t in wizard if "no_passages_used" in t["checked_sentence"]]
    unigrams = [w for ts in tokens for w in ts]
    bigrams = [tuple(ts[i:i + 2]) for ts in tokens for i in range(len(ts) - 1)]
    f1s = []
    for t in wizard:
        if t in no_sentence:
            continue
        (sentence,) = t["checked_sentence"].values()
        reply, reference = Counter(t["text"].lower().split()), Counter(sentence.lower().rstrip(".").replace(".", " ").split())
        common = sum((reply & reference).values())
        f1s.append(0.0 if not common else 2 * common / (sum(reply.values()) + sum(reference.values())))

    assert figures["dialogues"]["pilot"] == len(dialogues) == campaign.rooms.count()
    assert figures["turns per dialogue"]["pilot"] == pytest.approx(sum(len(d["dialog"]) for d in dialogues) / len(dialogues))
    assert figures["turns per dialogue"]["published"] == pytest.approx(201_999 / 22_311)
    assert figures["topics"]["pilot"] == len(TOPICS)
    assert figures["words per utterance"]["pilot"] == pytest.approx(len(unigrams) / len(texts))
    assert figures["share of wizard turns with no sentence used"]["pilot"] == pytest.approx(len(no_sentence) / len(wizard))
    assert figures["share of wizard turns with a checked sentence"]["pilot"] == pytest.approx(1 - len(no_sentence) / len(wizard))
    assert figures["distinct-1"]["pilot"] == pytest.approx(len(set(unigrams)) / len(unigrams))
    assert figures["distinct-2"]["pilot"] == pytest.approx(len(set(bigrams)) / len(bigrams))
    knowledge = figures["knowledge use: unigram F1 of a wizard reply with its checked sentence"]
    assert knowledge["pilot"] == pytest.approx(sum(f1s) / len(f1s))
    assert figures["apprentice's rating of the wizard (1–5)"]["pilot"] == pytest.approx(4.0)
    # Published only where the paper prints the figure.
    assert [name for name, f in figures.items() if f["published"] is not None] == ["turns per dialogue"]
    turns = figures["turns per dialogue"]
    assert turns["stands_out"] == (abs(turns["pilot"] - turns["published"]) / turns["published"] > 0.25)


def test_the_command_writes_the_folder(campaign, tmp_path: Path) -> None:
    out = tmp_path / "cmd"
    stdout = io.StringIO()
    call_command("export_dataset", "wow", "--format", "hf", "--out", str(out), "--campaign", "hf-wow", stdout=stdout)
    assert "wrote wow (hf)" in stdout.getvalue()
    assert sum(load(out, tmp_path).num_rows.values()) == campaign.rooms.count()
    # Again into the same folder: the earlier export is replaced whole.
    call_command("export_dataset", "wow", "--format", "hf", "--out", str(out), stdout=io.StringIO())
    assert (out / "README.md").exists()


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir()) if parent.exists() else []


def test_bad_requests_say_why_and_write_nothing(tmp_path: Path) -> None:
    parent = tmp_path / "exports"
    out = parent / "hf"

    make_campaign(slug="empty-wow", protocol="wow")
    with pytest.raises(CommandError, match=r"nothing to export: campaign\(s\) empty-wow has no finished dialogue"):
        call_command("export_dataset", "wow", "--format", "hf", "--campaign", "empty-wow", "--out", str(out))
    assert _leftovers(parent) == []

    with pytest.raises(CommandError, match=r"dataset 'faithdial' has no Hugging Face export \(--format hf\); those with one: .*wow"):
        call_command("export_dataset", "faithdial", "--format", "hf", "--out", str(out))
    with pytest.raises(CommandError, match="unknown dataset 'nope'"):
        call_command("export_dataset", "nope", "--format", "hf", "--out", str(out))

    one = make_campaign(slug="src-a", protocol="wow", knowledge_source=make_source(name="Wiki A"))
    two = make_campaign(slug="src-b", protocol="wow", knowledge_source=make_source(name="Wiki B"))
    wow_room(one, topic="Tea")
    wow_room(two, topic="Jazz")
    with pytest.raises(CommandError, match=r"different knowledge sources \(src-a: Wiki A; src-b: Wiki B\)"):
        call_command("export_dataset", "wow", "--format", "hf", "--campaign", "src-a", "--campaign", "src-b", "--out", str(out))
    assert _leftovers(parent) == []

    out.mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(CommandError, match="is not empty and holds no earlier Hugging Face export"):
        call_command("export_dataset", "wow", "--format", "hf", "--campaign", "src-a", "--out", str(out))
    assert _leftovers(out) == ["notes.txt"]


def test_a_failing_writer_leaves_the_earlier_export_untouched(campaign, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "hf"
    export_hf("wow", out, ExportOptions(**WIDE))
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(rows: list[dict[str, Any]], **kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(datasets.Dataset, "from_list", broken)
    with pytest.raises(OSError, match="disk full"):
        export_hf("wow", out, ExportOptions(**WIDE))
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert _leftovers(tmp_path) == ["hf"]  # no hidden work folder left beside it


def test_pay_per_hour_comes_from_the_review(campaign, tmp_path: Path) -> None:
    from datetime import timedelta

    campaign.outcome_pay_cents = {"completed": 300}
    campaign.save()
    seats = list(Assignment.objects.filter(room__campaign=campaign).order_by("pk"))
    for seat in seats:  # every seat reviewed: 3.00 for 15 minutes of work = 12.00 an hour
        seat.outcome, seat.decision, seat.ended_at = Outcome.COMPLETED, Decision.APPROVED, seat.created + timedelta(minutes=15)
        seat.save()
    out = tmp_path / "hf"
    export_hf("wow", out, ExportOptions(**WIDE))
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "Pay per hour (reviewed work, base pay and bonuses): 12.00 USD" in text


def test_the_card_gives_the_agreement_of_the_campaigns_annotation_jobs(campaign, tmp_path: Path) -> None:
    from annotate.models import Job
    from annotate.selectors.report import annotation_report
    from collect.models import Worker
    from tests.annotate.conftest import make_job
    from tests.annotate.test_report import answer

    job = make_job("relevance", items=2, overlap=2, slug="hf-relevance")
    Job.objects.filter(pk=job.pk).update(source={"campaigns": ["hf-wow"]})
    make_job("relevance", items=1, overlap=2, slug="other-relevance")  # of no exported campaign
    alice, bob = (Worker.objects.create(external_id=name) for name in ("alice", "bob"))
    for worker, picks in ((alice, [[1], [0, 1]]), (bob, [[1], [1]])):
        for selected in picks:
            answer(job, worker, selected=selected)
    report = annotation_report(job=Job.objects.get(pk=job.pk))
    kappa, alpha = report["agreements"]

    out = tmp_path / "hf"
    export_hf("wow", out, ExportOptions(**WIDE))
    text = (out / "README.md").read_text(encoding="utf-8")
    assert (
        f"- relevance job (`hf-relevance`, relevance, 2 annotators per item, 4 answers): "
        f"{kappa['measure']} {kappa['value']:.3f} over {kappa['units']:,} units; "
        f"{alpha['measure']} {alpha['value']:.3f} over {alpha['units']:,} units"
    ) in text
    assert "other-relevance" not in text


def test_the_card_sums_up_the_authenticity_flags_of_the_exported_turns(campaign, tmp_path: Path) -> None:
    from collect.authenticity.signals import room_signals_compute
    from collect.models import Message, Room

    rooms = list(Room.objects.filter(campaign=campaign).order_by("pk"))
    for room in rooms[1:]:
        room_signals_compute(room_id=room.pk)  # the first room's never ran
    human_turns = Message.objects.filter(room__campaign=campaign).count()
    flagged = Message.objects.filter(room__in=rooms[1:], authenticity__isnull=True).count()  # record_missing, each
    assert flagged > 0

    out = tmp_path / "hf"
    export_hf("wow", out, ExportOptions(**WIDE))
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "## Authenticity" in text
    assert f"{flagged:,} of {human_turns:,} human turns ({flagged / human_turns:.1%}) carry at least one flag." in text
    assert f"| `record_missing` | no valid record from the page | {flagged:,} |" in text
    assert "1 dialogue had no signals computed" in text
    assert_valid_card(out)
