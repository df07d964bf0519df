"""DuConv's Hugging Face export over the shared 200-session dev sample of the original release:
`load_dataset` reads it offline, its rows are the JSON Lines export's, and its conformance figures
equal those computed here from the file itself."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import huggingface_hub
import pytest
from django.core.management import call_command

from collect.exporters import ExportOptions
from collect.exporters.hf import export_hf
from collect.tasktypes.duconv.hf import FEATURES, session_from_row
from tests.hf_card import assert_valid_card

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


def squeezed(text: str) -> str:
    return "".join(text.split())


def mention_form(text: str) -> str:
    """How a mention is compared (docs/duconv.md): NFKC, case-folded, no spaces or punctuation."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if not c.isspace() and not unicodedata.category(c).startswith("P"))


def test_the_dev_sample_exports_loads_and_conforms(sample_path: Path, tmp_path: Path) -> None:
    call_command("import_dataset", "duconv", str(sample_path), verbosity=0)
    out = tmp_path / "hf"
    result = export_hf("duconv", out, ExportOptions())
    sessions = [json.loads(line) for line in sample_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert result.counts == {"duconv/dev": len(sessions)}  # train and test are empty: left out

    card = assert_valid_card(out)
    assert card.language == ["zh"] and card.license == "other" and card.configs[0]["config_name"] == "duconv"
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["dev"] and loaded["dev"].features == FEATURES
    assert [session_from_row(row) for row in loaded["dev"]] == sessions

    figures = {f["name"]: f for f in json.loads((out / "conformance.json").read_text(encoding="utf-8"))}
    utterances = [u for s in sessions for u in s["conversation"]]
    chars = [squeezed(u) for u in utterances]
    assert figures["sessions"]["pilot"] == 200
    assert figures["utterances per session"]["pilot"] == pytest.approx(len(utterances) / 200)
    assert figures["utterances per session"]["published"] == pytest.approx(9.0)
    assert figures["knowledge triples per session"]["pilot"] == pytest.approx(sum(len(s["knowledge"]) for s in sessions) / 200)
    assert figures["characters per utterance"]["pilot"] == pytest.approx(sum(map(len, chars)) / len(chars))
    unigrams = [c for text in chars for c in text]
    bigrams = [text[i:i + 2] for text in chars for i in range(len(text) - 1)]
    assert figures["distinct-1 (characters)"]["pilot"] == pytest.approx(len(set(unigrams)) / len(unigrams))
    assert figures["distinct-2 (characters)"]["pilot"] == pytest.approx(len(set(bigrams)) / len(bigrams))

    def completion(session: dict) -> int:
        text = [mention_form(u) for u in session["conversation"]]
        first = lambda entity: next((i for i, t in enumerate(text) if mention_form(entity) and mention_form(entity) in t), None)  # noqa: E731
        a, b = first(session["goal"][0][1]), first(session["goal"][0][2])
        if a is None or b is None or a > b:
            return 0
        used = {i for i, (_, _, value) in enumerate(session["knowledge"]) if any(mention_form(value) and mention_form(value) in t for t in text)}
        return 2 if len(used) >= 2 else 1

    scores = [completion(s) for s in sessions]
    assert figures["goal completion (0–2)"]["pilot"] == pytest.approx(sum(scores) / 200)
    assert figures["share of sessions with goal completion 2"]["pilot"] == pytest.approx(scores.count(2) / 200)


def test_test_format_samples_are_refused_and_nothing_is_written(sample_path: Path, tmp_path: Path) -> None:
    from django.core.management import CommandError

    call_command("import_dataset", "duconv", str(sample_path), verbosity=0)
    with pytest.raises(CommandError, match=r"test-format samples \(--samples\) have no Hugging Face export"):
        call_command("export_dataset", "duconv", "--format", "hf", "--samples", "--out", str(tmp_path / "hf"), verbosity=0)
    assert list(tmp_path.iterdir()) == []


def test_a_few_sessions_export_and_load_without_the_shared_data(tmp_path: Path) -> None:
    from tests.backup.every_kind import DUCONV_SESSIONS

    dev = tmp_path / "dev.txt"
    dev.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in DUCONV_SESSIONS), encoding="utf-8")
    call_command("import_dataset", "duconv", str(dev), verbosity=0)
    out = tmp_path / "hf"
    assert export_hf("duconv", out, ExportOptions()).counts == {"duconv/dev": len(DUCONV_SESSIONS)}
    assert_valid_card(out)
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert [session_from_row(row) for row in loaded["dev"]] == DUCONV_SESSIONS
    figures = {f["name"]: f["pilot"] for f in json.loads((out / "conformance.json").read_text(encoding="utf-8"))}
    assert figures["utterances per session"] == pytest.approx(sum(len(s["conversation"]) for s in DUCONV_SESSIONS) / len(DUCONV_SESSIONS))
