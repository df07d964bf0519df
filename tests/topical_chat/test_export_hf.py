"""Topical-Chat's Hugging Face export of a sample in the release's format: `load_dataset` reads it
offline, its rows are the conversation files' records with their reading sets, and its conformance
figures equal those computed here."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import huggingface_hub
import pytest

from collect.exporters import ExportOptions
from collect.exporters.hf import export_hf
from collect.tasktypes.topical_chat.hf import FEATURES, conversation_from_row
from tests.topical_chat import sample
from tests.topical_chat.test_import_export import import_sample
from tests.hf_card import assert_valid_card

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


@pytest.mark.parametrize("build", ["post-build", "pre-build"])
def test_the_sample_exports_loads_and_conforms(tmp_path: Path, build: str) -> None:
    import_sample(sample.write(tmp_path / "release", build=build), job="tc-sample")
    out = tmp_path / "hf"
    assert export_hf("topical_chat", out, ExportOptions()).counts == {"topical_chat/valid_freq": len(sample.IDS)}

    assert_valid_card(out)
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["valid_freq"] and loaded["valid_freq"].features == FEATURES
    conversations = sample.conversations()
    reading = sample.post_build() if build == "post-build" else sample.pre_build()
    rows = list(loaded["valid_freq"])
    assert {row["conversation_id"]: conversation_from_row(row) for row in rows} == conversations
    assert {row["conversation_id"]: json.loads(row["reading_set"]) for row in rows} == reading
    assert {row["reading_set_build"] for row in rows} == {build}

    figures = {f["name"]: f for f in json.loads((out / "conformance.json").read_text(encoding="utf-8"))}
    turns = [t for c in conversations.values() for t in c["content"]]
    assert figures["conversations"]["pilot"] == len(conversations)
    assert figures["turns per conversation"]["pilot"] == pytest.approx(len(turns) / len(conversations))
    assert figures["turns per conversation"]["published"] == 21.8
    grounded = [t for t in turns if set(t["knowledge_source"]) - {"Personal Knowledge"}]
    assert figures["share of turns drawing on the reading set"]["pilot"] == pytest.approx(len(grounded) / len(turns))
    sentiments = [t["sentiment"] for t in turns if t["sentiment"]]
    for name in set(sentiments):
        assert figures[f"sentiment share: {name}"]["pilot"] == pytest.approx(sentiments.count(name) / len(sentiments))
