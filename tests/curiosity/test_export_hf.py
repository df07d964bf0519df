"""Curiosity's Hugging Face export: `load_dataset` reads it offline and its rows are the JSON
export's (quirks of an imported release included); the conformance figures of an imported sample
equal those computed here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import datasets
import huggingface_hub
import pytest

from collect.exporters import ExportOptions, export_dataset
from collect.exporters.hf import export_hf
from collect.tasktypes.curiosity.exporter import FILES, SPLITS
from collect.tasktypes.curiosity.hf import DIALOG_ACTS, FEATURES, dialog_from_row
from tests.curiosity.test_import_export import import_all, release  # noqa: F401 (a fixture)
from tests.hf_card import assert_valid_card

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


def json_dialogs(tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    out = tmp_path / "json"
    export_dataset("curiosity", out, ExportOptions())
    return {split: json.loads((out / FILES[split]).read_text(encoding="utf-8"))["dialogs"] for split in SPLITS}


def ids_as_strings(dialog: dict[str, Any]) -> dict[str, Any]:
    return {k: (str(v) if k in ("user_id", "assistant_id") and v is not None else v) for k, v in dialog.items()}


def test_load_dataset_reads_it_and_its_rows_are_the_json_exports(release: dict, tmp_path: Path) -> None:  # noqa: F811
    import_all(release)
    out = tmp_path / "hf"
    export_hf("curiosity", out, ExportOptions())
    expected = json_dialogs(tmp_path)
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == [s for s in SPLITS if expected[s]]
    for split in loaded:
        assert loaded[split].features == FEATURES
        assert [dialog_from_row(row) for row in loaded[split]] == [ids_as_strings(d) for d in expected[split]], split
    row = loaded["train"][0]
    assert row["messages"][0]["dialog_acts"] == [DIALOG_ACTS.index("request_topic")]
    shown = row["messages"][1]["facts"]
    assert len(shown) == 9 and all(isinstance(f["text"], str) and f["text"] for f in shown)  # texts from the fact db
    odd = loaded["test_zero"][0]
    assert json.loads(odd["extra"]) == {"keys": {"extra_key": {"kept": [1, 2]}}, "absent": ["reported"]}
    assert_valid_card(out)
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "@inproceedings{rodriguez2020curiosity" in card and "config_name: curiosity" in card


def test_the_conformance_figures_equal_those_computed_here(release: dict, tmp_path: Path) -> None:  # noqa: F811
    import_all(release)
    out = tmp_path / "hf"
    export_hf("curiosity", out, ExportOptions())
    figures = {f["name"]: f for f in json.loads((out / "conformance.json").read_text(encoding="utf-8"))}
    # The sample (tests/curiosity/dialogs.py): 6 dialogs of 4 messages; per dialog one liked
    # assistant message, one fact used, and acts on 2 messages (request_topic, inform_response);
    # the quirky one's third message has null acts.
    dialogs = [d for split in SPLITS for d in release["splits"][split]]
    assert figures["dialogs"]["pilot"] == len(dialogs) == 6
    assert figures["utterances per dialog"]["pilot"] == 4
    assert figures["utterances per dialog"]["published"] == pytest.approx(181 / 14)
    assert figures["utterances per dialog"]["stands_out"] is True  # 4 against 12.9
    assert figures["topics"]["pilot"] == 2
    assert figures["liked assistant messages per dialog"]["pilot"] == 1
    assert figures["share of assistant messages liked"]["pilot"] == 0.5
    assert figures["facts used per dialog"]["pilot"] == 1
    assert figures["share of assistant messages using a fact"]["pilot"] == 0.5
    assert figures["share of messages with dialog acts"]["pilot"] == 0.5
    assert figures["dialog act share: request_topic"]["pilot"] == 0.5
    assert figures["dialog act share: inform_response"]["pilot"] == 0.5
    assert figures["dialog act share: offer_topic"]["pilot"] == 0
    assert figures["user's rating of the dialog (1–5)"]["pilot"] == 5 and figures["assistant's rating of the dialog (1–5)"]["pilot"] == 5
    texts = [m["message"] for d in dialogs for m in d["messages"]]
    tokens = [t.lower().replace("?", " ").replace("!", " ").replace(".", " ").replace(",", " ").replace("'s", "'s").split() for t in texts]
    assert figures["words per utterance"]["pilot"] == pytest.approx(sum(map(len, tokens)) / len(texts))
    unigrams = [w for ts in tokens for w in ts]
    assert figures["distinct-1"]["pilot"] == pytest.approx(len(set(unigrams)) / len(unigrams))
