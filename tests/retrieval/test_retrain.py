"""retrain_ranker: collected examples retrain the learned ranker, the held-out gate promotes a
better model and keeps a worse one out, versions roll back, and every process sees the live one."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.models import Assignment, Decision
from retrieval.rankers.load import live_ranker, ranker_version
from retrieval.rerank import panel_rank
from retrieval.training import registry
from retrieval.training.services import ranker_retrain, ranker_rollback
from tests.factories import make_campaign
from tests.retrieval.collected import collected_rooms, heldout_file
from tests.retrieval.retrain_fixtures import ranker_dir  # noqa: F401 - a fixture

pytestmark = [pytest.mark.backends, pytest.mark.django_db]

TRAIN, HELDOUT = range(0, 40), range(100, 140)
PANEL = [{"title": "Island1", "sentences": ["Island1 is a volcanic island in the south.", "Its population grew."]},
         {"title": "Harbour1", "sentences": ["Ferry boats in the harbour carry an old crew, number 1."]}]


@pytest.fixture
def heldout(tmp_path: Path) -> Path:
    return heldout_file(tmp_path / "heldout.json", HELDOUT)


def manifest() -> dict:
    return registry.manifest_read()


def test_a_model_trained_on_careful_wizards_is_promoted_and_ranks_the_next_panel(ranker_dir: Path, heldout: Path) -> None:
    before = panel_rank(context=["Tell me about Island1.", "Ferry boats?"], passages=PANEL, topic="Island1", after_seq=2)
    assert before["ranked_by"] == "shipped-lexical"
    collected_rooms(make_campaign(), TRAIN)

    event = ranker_retrain(heldout=heldout)

    assert event["outcome"] == "promoted", event
    assert event["scores"]["MRR@1"] > event["live_scores"]["MRR@1"]  # better than the shipped model here
    saved = manifest()
    assert saved["current"] == "v0001" == event["version"]
    (entry,) = saved["versions"]
    assert entry["training"]["contexts"] == entry["training"]["wizard_turns"] == len(TRAIN)
    assert entry["training"]["dialogues"] == len(TRAIN) and entry["heldout"] == {"source": "file", "file": str(heldout), "contexts": len(HELDOUT)}
    assert (ranker_dir / "versions" / "v0001" / "learned.json").is_file()
    # The same process ranks with it from the next panel on, and the stored panel says so.
    assert ranker_version(live_ranker()) == "v0001"
    after = panel_rank(context=["Tell me about Island1.", "Ferry boats?"], passages=PANEL, topic="Island1", after_seq=2)
    assert after["ranked_by"] == "v0001" and after["type"] == "knowledge.reranked"
    assert [e["outcome"] for e in registry.events_read()] == ["promoted"]


def test_a_model_trained_on_corrupted_labels_is_kept_out(ranker_dir: Path, heldout: Path) -> None:
    campaign = make_campaign()
    collected_rooms(campaign, TRAIN)
    assert ranker_retrain(heldout=heldout)["outcome"] == "promoted"
    good = list(Assignment.objects.values_list("room_id", flat=True))
    collected_rooms(campaign, range(40, 80), corrupted=True)
    Assignment.objects.filter(room_id__in=good).update(decision=Decision.REJECTED)  # only the corrupted ones count

    event = ranker_retrain(heldout=heldout)

    assert event["outcome"] == "kept_out", event
    assert "MRR@1" in event["reason"] and event["scores"]["MRR@1"] < event["live_scores"]["MRR@1"] - 0.01
    assert event["live_version"] == "v0001" and manifest()["current"] == "v0001"
    assert [v["promoted"] for v in manifest()["versions"]] == [True, False]
    assert ranker_version(live_ranker()) == "v0001"


def test_too_few_new_examples_wait_for_more_unless_forced(ranker_dir: Path, heldout: Path, monkeypatch) -> None:
    campaign = make_campaign()
    collected_rooms(campaign, range(0, 5))
    event = ranker_retrain(heldout=heldout)
    assert event["outcome"] == "skipped" and "too few examples: 5 collected, at least 10" in event["reason"]
    collected_rooms(campaign, range(5, 30))
    assert ranker_retrain(heldout=heldout)["outcome"] == "promoted"
    collected_rooms(campaign, range(30, 35))
    event = ranker_retrain(heldout=heldout)
    assert event["outcome"] == "skipped" and "5 new examples since v0001, 10 needed" in event["reason"]
    assert ranker_retrain(heldout=heldout, force=True)["version"] == "v0002"
    assert manifest()["current"] in ("v0001", "v0002") and len(manifest()["versions"]) == 2


@pytest.mark.parametrize(("content", "message"), [
    (None, "No such file"),
    ("[1, 2]", "expected a JSON object"),
    ("nothing relevant", "no context has a relevant sentence"),
])
def test_a_bad_heldout_set_leaves_the_live_model(ranker_dir: Path, tmp_path: Path, content, message, caplog) -> None:
    collected_rooms(make_campaign(), range(0, 20))
    path = tmp_path / "bad.json"
    if content == "nothing relevant":
        data = json.loads(heldout_file(path, HELDOUT).read_text())
        for record in data.values():
            for sentence in record["annotated_sentences"]:
                sentence["confidence"] = 0.1
        path.write_text(json.dumps(data))
    elif content is not None:
        path.write_text(content)
    with caplog.at_level(logging.ERROR, logger="retrieval.training.services"):
        event = ranker_retrain(heldout=path)
    assert event["outcome"] == "failed" and message in event["reason"] and "the live model stays" in event["reason"]
    assert message in caplog.text
    assert manifest()["current"] is None and not (ranker_dir / "versions").exists()
    assert registry.events_read()[-1]["outcome"] == "failed"


def test_a_second_retraining_while_one_runs_is_refused(ranker_dir: Path, heldout: Path) -> None:
    collected_rooms(make_campaign(), range(0, 20))
    with registry.retrain_lock():  # another process's run, as far as flock is concerned
        event = ranker_retrain(heldout=heldout)
        refused = ranker_rollback(version="shipped")
    assert event["outcome"] == refused["outcome"] == "busy"
    assert "another retraining is running" in event["reason"]
    assert manifest()["current"] is None
    assert ranker_retrain(heldout=heldout)["outcome"] == "promoted"  # the lock is free again


def test_a_run_killed_midway_leaves_no_version(ranker_dir: Path, heldout: Path) -> None:
    leftover = ranker_dir / "versions" / ".partial-killed"
    leftover.mkdir(parents=True)
    (leftover / "learned.json.partial").write_text('{"kind": "lea')
    collected_rooms(make_campaign(), range(0, 20))
    assert ranker_retrain(heldout=heldout)["version"] == "v0001"
    assert sorted(p.name for p in (ranker_dir / "versions").iterdir()) == ["v0001"]


def test_rollback_to_the_previous_version_or_the_shipped_model(ranker_dir: Path, heldout: Path) -> None:
    campaign = make_campaign()
    collected_rooms(campaign, range(0, 20))
    ranker_retrain(heldout=heldout)
    collected_rooms(campaign, range(20, 40))
    ranker_retrain(heldout=heldout, force=True)
    assert manifest()["current"] == "v0002", manifest()["versions"][-1]

    out = io.StringIO()
    call_command("retrain_ranker", "--rollback", stdout=out)
    assert "rolled_back: v0002 -> v0001" in out.getvalue()
    assert ranker_version(live_ranker()) == "v0001"
    call_command("retrain_ranker", "--rollback", stdout=out)
    assert manifest()["current"] is None and ranker_version(live_ranker()) == "shipped-lexical"
    call_command("retrain_ranker", "--rollback", "v0002", stdout=out)
    assert ranker_version(live_ranker()) == "v0002"
    with pytest.raises(CommandError, match="no version 'v0009'"):
        call_command("retrain_ranker", "--rollback", "v0009", stdout=out)
    assert manifest()["current"] == "v0002"


def test_a_model_file_that_does_not_load_never_goes_live(ranker_dir: Path, heldout: Path, caplog) -> None:
    collected_rooms(make_campaign(), range(0, 20))
    ranker_retrain(heldout=heldout)
    (ranker_dir / "versions" / "v0001" / "learned.json").write_text('{"kind": "learned", "sem')

    with caplog.at_level(logging.ERROR):
        ranker = live_ranker()
        live_ranker()
    assert ranker_version(ranker) == "shipped-lexical"
    assert caplog.text.count("ranker v0001 does not load") == 1
    ranker_rollback(version="shipped")
    with pytest.raises(CommandError, match="not a learned ranker model"):
        call_command("retrain_ranker", "--rollback", "v0001", stdout=io.StringIO())
    assert manifest()["current"] is None


def test_the_command_and_the_beat_task_gate_on_an_imported_heldout_file(ranker_dir: Path, heldout: Path, settings) -> None:
    from retrieval.tasks import ranker_retrain as task

    settings.CELERY_TASK_ALWAYS_EAGER = True
    out = io.StringIO()
    call_command("import_heldout", str(heldout), stdout=out)
    assert f"imported {len(HELDOUT)} contexts with a relevant sentence into {ranker_dir / 'heldout.json'}" in out.getvalue()
    heldout.unlink()  # the site keeps its own copy
    event = task.delay().get()
    assert event["outcome"] == "skipped" and "too few examples: 0 collected" in event["reason"]
    collected_rooms(make_campaign(), range(0, 20))
    out = io.StringIO()
    out = io.StringIO()
    call_command("retrain_ranker", "--json", stdout=out)
    assert json.loads(out.getvalue())["outcome"] == "promoted"
    assert manifest()["versions"][0]["heldout"] == {"source": "file", "file": str(ranker_dir / "heldout.json"), "contexts": len(HELDOUT)}
    call_command("retrain_ranker", "--list", stdout=out)
    assert "* v0001" in out.getvalue()
    assert "retrieval.tasks.ranker_retrain" in {e["task"] for e in settings.CELERY_BEAT_SCHEDULE.values()}


def test_a_process_looks_at_the_manifest_at_most_every_reload_interval(ranker_dir: Path, heldout: Path, settings) -> None:
    from retrieval.training.live import promoted_forget

    settings.RANKER_RELOAD_S = 3600
    assert ranker_version(live_ranker()) == "shipped-lexical"
    collected_rooms(make_campaign(), range(0, 20))
    assert ranker_retrain(heldout=heldout)["outcome"] == "promoted"
    assert ranker_version(live_ranker()) == "shipped-lexical"  # not looked at again within the interval
    promoted_forget()  # as when the interval has passed
    assert ranker_version(live_ranker()) == "v0001"


KILLED_RUN = """
import django, sys
django.setup()
from retrieval.training import registry
with registry.retrain_lock(), registry.version_staging() as staging:
    (staging / "learned.json").write_text('{"kind": "learned", "coef": [0.1, ')
    print("writing", flush=True)
    sys.stdin.readline()  # killed here, halfway through writing its model
"""


def test_a_run_killed_while_writing_its_model_leaves_the_lock_free_and_no_version(ranker_dir: Path, heldout: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "groundwork.settings", "GROUNDWORK_RANKER_DIR": str(ranker_dir)}
    run = subprocess.Popen([sys.executable, "-c", KILLED_RUN], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                           cwd=Path(__file__).resolve().parents[2])
    try:
        assert run.stdout.readline().strip() == "writing"
        assert ranker_retrain(heldout=heldout)["outcome"] == "busy"
    finally:
        run.kill()
        run.wait(timeout=60)
    collected_rooms(make_campaign(), range(0, 20))
    assert ranker_retrain(heldout=heldout)["outcome"] == "promoted"  # the dead run's lock went with it
    assert sorted(p.name for p in (ranker_dir / "versions").iterdir()) == ["v0001"]  # its half-written model removed
