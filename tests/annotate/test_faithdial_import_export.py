"""FaithDial's released JSON in and out: an imported sample exports byte for byte; labels and
rewrites go into the released fields; bad files are refused naming the dialogue, utterance and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Item, ItemRole, Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from collect.models import Worker
from research.targets import export_target_for_job, export_target_write
from tests.annotate.faithdial_data import sample, write

# backends: the released fields come back in the file's order from PostgreSQL's jsonb too.
pytestmark = [pytest.mark.django_db, pytest.mark.backends]


def import_sample(tmp_path: Path, dialogues=None, **options: str) -> Job:
    path = write(tmp_path / "sample.json", dialogues)
    args = [f"--{k}={v}" for k, v in options.items()]
    call_command("import_dataset", "faithdial", str(path), "--job", "fd", *args)
    return Job.objects.get(slug="fd")


def export(tmp_path: Path, job: str = "fd") -> bytes:
    out = tmp_path / "out"
    call_command("export_dataset", "faithdial", "--job", job, "--out", str(out))
    return (out / f"{job}_faithdial.json").read_bytes()


def test_an_imported_sample_exports_byte_for_byte(tmp_path: Path) -> None:
    job = import_sample(tmp_path)
    assert job.kind == "faithdial" and job.items.count() == 3
    first = Item.objects.get(job=job, key="0:0").payload
    # The annotators see the Wizard of Wikipedia response: the original where the file has one.
    assert first["response"] == "No, but Madonna's tenth tour was amazing, I saw it twice."
    assert export(tmp_path) == (tmp_path / "sample.json").read_bytes()


def label(job: Job, worker: Worker, answers: dict[str, dict]) -> None:
    while (next_item := assignment_next(job=job, worker=worker)).assignment is not None:
        item = next_item.assignment.item
        answer_submit(item_id=item.pk, worker=worker, **answers[item.key])


def test_labels_and_rewrites_go_into_the_released_fields(tmp_path: Path) -> None:
    job = import_sample(tmp_path, overlap="2")
    alice, bob = (Worker.objects.create(external_id=n) for n in ("alice", "bob"))
    rewrite = "I don't know how often people drink it, but coffee is brewed from roasted coffee beans."
    faithful = {"begin": ["Entailment"], "vrm": ["Edification"], "response": ""}
    label(job, alice, {"0:0": faithful, "0:1": faithful,
                       "1:0": {"begin": ["Hallucination"], "vrm": ["Disclosure"], "response": rewrite}})
    label(job, bob, {"0:0": faithful, "0:1": {"begin": ["Entailment"], "vrm": ["Edification", "Question"], "response": ""},
                     "1:0": {"begin": ["Hallucination"], "vrm": ["Disclosure"], "response": "Coffee is brewed from beans."}})
    dialogues = json.loads(export(tmp_path))
    second = dialogues[0]["utterances"][1]
    assert second["BEGIN"] == ["Entailment"] and second["VRM"] == ["Edification", "Question"]
    assert second["original_response"] is None and second["response"].startswith("It started in September")
    edited = dialogues[1]["utterances"][0]
    # The first rewrite submitted; the fields the file lacked are added after its own.
    assert list(edited) == ["history", "speaker", "knowledge", "response", "original_response", "BEGIN", "VRM"]
    assert edited["response"] == rewrite
    assert edited["original_response"] == "I drink five cups a day, it comes from Brazil only."
    assert edited["BEGIN"] == ["Hallucination"] and edited["VRM"] == ["Disclosure"]


def test_the_files_labels_become_gold_answers(tmp_path: Path) -> None:
    dialogues = sample()[:1]
    dialogues[0]["utterances"] = dialogues[0]["utterances"][:1]
    job = import_sample(tmp_path, dialogues, role="gold")
    item = Item.objects.get(job=job)
    assert item.role == ItemRole.GOLD
    assert item.gold == {"begin": ["Hallucination", "Entailment"], "vrm": ["Disclosure", "Edification"],
                         "response": dialogues[0]["utterances"][0]["response"]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d[0]["utterances"][0].update(BEGIN=["Halucination"]),
         "dialogue 0, utterance 0: BEGIN: unknown label 'Halucination'; choose from Entailment, Hallucination"),
        (lambda d: d[1]["utterances"][0].update(VRM=["Chit-chat"]), "dialogue 1, utterance 0: VRM: unknown label 'Chit-chat'"),
        (lambda d: d[1]["utterances"][0].pop("knowledge"), "dialogue 1, utterance 0: knowledge must be non-empty text"),
        (lambda d: d[0]["utterances"][1].update(history="hi"), "dialogue 0, utterance 1: history must be a list of strings"),
        (lambda d: d[1].update(utterances=[]), "dialogue 1: utterances must be a non-empty list"),
    ],
)
def test_bad_files_are_refused_naming_the_place(tmp_path: Path, change, message: str) -> None:
    dialogues = sample()
    change(dialogues)
    with pytest.raises(CommandError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        import_sample(tmp_path, dialogues)
    assert not Job.objects.exists()


def test_a_lone_surrogate_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    text = json.dumps(sample(), indent=2).replace("Coffee is a brewed drink", "Coffee \\ud83d is a brewed drink")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError, match=r"record 1, utterances\[0\]\.knowledge holds a lone surrogate"):
        call_command("import_dataset", "faithdial", str(path), "--job", "fd")
    assert not Job.objects.exists()


def test_export_needs_a_faithdial_job(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="give --job SLUG"):
        call_command("export_dataset", "faithdial", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="no annotation job 'nope'"):
        call_command("export_dataset", "faithdial", "--job", "nope", "--out", str(tmp_path))


def test_research_offers_the_same_bytes_as_the_command(tmp_path: Path) -> None:
    job = import_sample(tmp_path)
    target = export_target_for_job(job=job)
    assert target.dataset == "faithdial" and target.command == "manage.py export_dataset faithdial --job fd --out DIR"
    export_target_write(target, tmp_path / "research")
    assert (tmp_path / "research" / "fd_faithdial.json").read_bytes() == export(tmp_path)
