"""Model chat's Hugging Face export: `load_dataset` reads it offline, its rows are the JSON Lines
export's, and its report's figures per arm equal those counted here from the populated campaign."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import huggingface_hub
import pytest

from collect.exporters import ExportOptions, export_dataset
from collect.exporters.hf import export_hf
from collect.tasktypes.modelchat.exporter import FILE
from collect.tasktypes.modelchat.hf import FEATURES, record_from_row
from tests.evaluation.campaign import make_campaign, populate
from tests.hf_card import assert_valid_card

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


def test_the_campaign_exports_loads_and_reports_per_arm(tmp_path: Path) -> None:
    populate(make_campaign())
    export_dataset("modelchat", tmp_path / "json", ExportOptions())
    records = [json.loads(line) for line in (tmp_path / "json" / FILE).read_text(encoding="utf-8").splitlines()]
    out = tmp_path / "hf"
    assert export_hf("modelchat", out, ExportOptions()).counts == {"modelchat/train": 8}

    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["train"] and loaded["train"].features == FEATURES
    assert [record_from_row(row) for row in loaded["train"]] == [{**r, "conversation_id": str(r["conversation_id"])} for r in records]

    figures = {f["name"]: f["pilot"] for f in json.loads((out / "conformance.json").read_text(encoding="utf-8"))}
    assert figures["conversations"] == 8
    assert figures["good-bot: conversations"] == 3 and figures["bad-bot: conversations"] == 3 and figures["human: conversations"] == 2
    assert figures["good-bot: mean engagingness"] == pytest.approx(14 / 3)
    assert figures["bad-bot: mean engagingness"] == pytest.approx(4 / 3)
    assert figures["human: mean engagingness"] == pytest.approx(4.5)
    assert figures["bad-bot: share of labelled turns with a problem"] == 0.5  # ["none"], then two problems
    assert figures["good-bot: share of labelled turns with a problem"] == 0.0
    assert figures["good-bot: median latency (ms)"] == 150 and figures["bad-bot: median latency (ms)"] == 1000
    assert figures["bad-bot: words per partner turn"] == 3


def test_the_pairwise_judgments_are_a_config_of_their_own(tmp_path: Path) -> None:
    import io

    from django.core.management import call_command
    from django.test import Client

    from annotate.models import Job
    from collect.models import Worker
    from tests.annotate.conftest import Api
    from tests.annotate.test_pairwise import answer_all

    populate(make_campaign())
    call_command("create_annotation_job", "mc-pairs", "--kind", "pairwise", "--campaign", "eval-mc", "--overlap", "1", stdout=io.StringIO())
    answer_all(Api(Client(), Worker.objects.create(external_id="alice")), Job.objects.get(slug="mc-pairs"), check_right=True)
    export_dataset("modelchat", tmp_path / "json", ExportOptions())
    judgments = [json.loads(line) for line in (tmp_path / "json" / "modelchat_pairwise_judgments.jsonl").read_text(encoding="utf-8").splitlines()]
    out = tmp_path / "hf"
    assert export_hf("modelchat", out, ExportOptions()).counts == {"modelchat/train": 8, "pairwise_judgments/train": 7}

    card = assert_valid_card(out)
    assert [c["config_name"] for c in card.configs] == ["modelchat", "pairwise_judgments"]
    from datasets.utils.metadata import MetadataConfigs

    assert MetadataConfigs.from_dataset_card_data(card).get_default_config_name() == "modelchat"
    assert datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))["train"].num_rows == 8
    loaded = datasets.load_dataset(str(out), "pairwise_judgments", cache_dir=str(tmp_path / "cache"))["train"]
    names = loaded.features["winner"].names, loaded.features["shown_left"].names
    rows = [{**row, "winner": names[0][row["winner"]], "shown_left": names[1][row["shown_left"]]} for row in loaded]
    assert rows == [{**j, "item": str(j["item"]), "conversation_a": str(j["conversation_a"]), "conversation_b": str(j["conversation_b"])} for j in judgments]
