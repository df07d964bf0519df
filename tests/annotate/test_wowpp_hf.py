"""WOW++ as a Hugging Face `datasets` folder (`export_dataset wowpp --job SLUG --format hf`):
`load_dataset` reads it offline and its rows give the JSON export's items back; the card passes the
Hub's metadata rules and counts items and annotators; a request without its job says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import datasets
import huggingface_hub
import pytest
from django.core.management import CommandError, call_command

from annotate.kinds.relevance.hf import RELEVANCE
from annotate.models import Job
from collect.exporters import ExportOptions
from collect.exporters.hf import export_hf
from collect.models import Campaign
from tests.annotate.conftest import People, make_job
from tests.annotate.test_wowpp import vote
from tests.factories import make_campaign
from tests.hf_card import assert_valid_card

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


def item_from_row(row: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The JSON item a row was made from (keys in the file's order; a row's None is an absent key)."""
    item: dict[str, Any] = {"turns": row["turns"], "topic": row["topic"]}
    for key in ("start_speaker", "id"):
        if row[key] is not None:
            item[key] = row[key]
    if row["knowledges"] is not None:
        item["knowledges"] = [{p["title"]: p["sentences"]} for p in row["knowledges"]]
    if row["gold_sentence"] is not None:
        item["gold_sentence"] = {row["gold_sentence"]["key"]: row["gold_sentence"]["text"]}
    item["annotated_sentences"] = [{**s, "relevance": RELEVANCE[s["relevance"]]} for s in row["annotated_sentences"]]
    return row["key"], item


def test_load_dataset_reads_the_job_and_its_rows_are_the_json_items(tmp_path: Path, people: People) -> None:
    make_campaign(slug="judged-wow", name="Judged chats", protocol="wow")
    job = make_job("relevance", items=2, overlap=2)
    Job.objects.filter(pk=job.pk).update(source={"campaigns": ["judged-wow"]})
    for worker, picks in ((people.alice, [[0, 1], [2]]), (people.bob, [[1, 4], [2, 3]])):
        for selected in picks:
            vote(job, worker, selected)
    json_out = tmp_path / "wowpp.json"
    call_command("export_dataset", "wowpp", "--job", job.slug, "--out", str(json_out))
    out = tmp_path / "hf"
    call_command("export_dataset", "wowpp", "--job", job.slug, "--format", "hf", "--out", str(out))

    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "hf-cache"))
    assert list(loaded) == ["train"]
    assert dict(item_from_row(row) for row in loaded["train"]) == json.loads(json_out.read_text())
    assert loaded["train"].features["annotated_sentences"].feature["relevance"].names == ["notRelevant", "relevant"]
    assert_valid_card(out, task_categories=("text-classification",))
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "2 items, " in card and "2 annotators (counted, never named)" in card
    assert f"{Campaign.objects.get(slug='judged-wow').name} (`judged-wow`)" in card
    assert "Eric, Mihail" in card


def test_an_hf_export_without_its_job_says_so_and_writes_nothing(tmp_path: Path, acts_job: Job) -> None:
    out = tmp_path / "hf"
    for args, text in (([], "give --job"), (["--job", "nope"], "no annotation job"), (["--job", acts_job.slug], "not relevance")):
        with pytest.raises(CommandError, match=text):
            call_command("export_dataset", "wowpp", *args, "--format", "hf", "--out", str(out))
    job = make_job("relevance", items=1, overlap=2, slug="unanswered")
    with pytest.raises(Exception, match="nothing to export: job 'unanswered' has no finished item"):
        export_hf("wowpp", out, ExportOptions(job=job.slug))
    assert not out.exists() and list(tmp_path.iterdir()) == []
