"""The retraining gate scores on a held-out set the site has: the collection's own held-out share
(rooms chosen by hash, never trained on) or a WOW++ file imported with `import_heldout`; without
either, the beat task skips in one line and /research/ranker/ says there is none."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from retrieval.training import registry
from retrieval.training.examples import held_out_share, training_examples_collected
from retrieval.training.heldout import HELDOUT_MIN_CONTEXTS, HELDOUT_PERCENT, held_out_by_hash
from retrieval.training.services import ranker_retrain
from tests.factories import make_campaign
from tests.retrieval.collected import collected_rooms, heldout_file
from tests.retrieval.retrain_fixtures import ranker_dir  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db
URL = "/research/ranker/"
BATCH = 40


def ranker_page() -> str:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    return client.get(URL).content.decode()


def held_rooms() -> set[str]:
    return {context.id.split(":")[1] for context in held_out_share()}


def test_without_a_heldout_set_the_beat_task_skips_in_one_line_and_the_page_says_so(ranker_dir: Path, settings, caplog) -> None:
    from retrieval.tasks import ranker_retrain as task

    settings.CELERY_TASK_ALWAYS_EAGER = True
    collected_rooms(make_campaign(), range(0, 30))
    assert len(held_out_share()) < HELDOUT_MIN_CONTEXTS  # 30 rooms hold out about 6

    with caplog.at_level(logging.INFO, logger="retrieval.training"):
        event = task.delay().get()

    assert event["outcome"] == "skipped", event
    assert event["reason"].startswith(f"no held-out set yet: the collection's held-out share ({HELDOUT_PERCENT}% of the rooms")
    assert "import_heldout FILE" in event["reason"] and "the live model stays" in event["reason"]
    (record,) = [record for record in caplog.records if record.name.startswith("retrieval")]
    assert record.levelno == logging.INFO and record.getMessage() == f"ranker retrain: skipped: {event['reason']}"
    assert registry.manifest_read()["versions"] == []
    html = ranker_page()
    assert "<strong>No held-out set yet</strong>: retraining is skipped until there is one." in html
    assert f"has {len(held_out_share())} contexts with a checked sentence; it gates from {HELDOUT_MIN_CONTEXTS}" in html


def test_the_collections_own_share_gates_and_never_trains_a_version(ranker_dir: Path) -> None:
    campaign = make_campaign()
    collected = 0
    while len(held_out_share()) < HELDOUT_MIN_CONTEXTS:  # rooms' ids are random: add rooms until the share gates
        collected_rooms(campaign, range(collected, collected + BATCH))
        collected += BATCH
        assert collected <= 10 * BATCH, "the held-out share does not grow with the collection"
    held = held_rooms()
    assert 0 < len(held) < collected

    event = ranker_retrain()

    assert event["outcome"] == "promoted", event  # the collected rule beats the shipped model on the held-out rooms
    (entry,) = registry.manifest_read()["versions"]
    assert entry["heldout"] == {"source": "collection", "percent": HELDOUT_PERCENT, "contexts": len(held)}
    assert entry["training"]["contexts"] == collected - len(held)
    trained = json.loads((ranker_dir / "versions" / "v0001" / "examples.json").read_text())
    assert len(trained) == collected - len(held) and not any(held_out_by_hash(key, per_dialogue=True) for key in trained)
    assert not {key.split(":")[1] for key in trained} & held
    # Kept fixed: a room held out stays held out whatever arrives later, and never trains.
    collected_rooms(campaign, range(collected, collected + BATCH))
    assert held <= held_rooms()
    assert training_examples_collected(hold_out_share=True).counts()["contexts"] == collected + BATCH - len(held_rooms())
    html = ranker_page()
    assert f"Held-out set: the collection's own, {HELDOUT_PERCENT}% of the rooms" in html
    assert f"never trained on: {len(held_rooms())} contexts with a checked sentence" in html


def test_an_imported_file_replaces_the_share_until_it_is_removed(ranker_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(CommandError, match="expected a JSON object.*nothing was imported"):
        call_command("import_heldout", str(bad), stdout=io.StringIO())
    assert not (ranker_dir / "heldout.json").exists()
    out = io.StringIO()
    call_command("import_heldout", "--show", stdout=out)
    assert "the collection's own share" in out.getvalue() and "no held-out set yet" in out.getvalue()

    call_command("import_heldout", str(heldout_file(tmp_path / "h.json", range(100, 125))), stdout=io.StringIO())
    collected_rooms(make_campaign(), range(0, 20))
    event = ranker_retrain()
    assert event["outcome"] == "promoted", event
    entry = registry.manifest_read()["versions"][0]
    assert entry["heldout"]["source"] == "file" and entry["heldout"]["contexts"] == 25
    assert entry["training"]["contexts"] == 20  # with a file, every collected example trains
    html = ranker_page()
    assert f"Held-out set: the imported file <code>{ranker_dir / 'heldout.json'}</code>, 25 contexts" in html

    out = io.StringIO()
    call_command("import_heldout", "--remove", stdout=out)
    assert "removed the imported held-out file" in out.getvalue() and "the collection's own share" in out.getvalue()
    assert not (ranker_dir / "heldout.json").exists()
    with pytest.raises(CommandError, match="give one of"):
        call_command("import_heldout", stdout=io.StringIO())
