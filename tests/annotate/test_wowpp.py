"""WOW++ export (docs/schemas.md#wow, exactly) and import: a file becomes a finished job whose
re-export is the same file; bad files store nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Item, ItemRole, Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from tests.annotate.conftest import People, make_job

pytestmark = pytest.mark.django_db

REAL_FILE = Path(__file__).resolve().parents[3] / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"
RECORD_KEYS = ["turns", "topic", "start_speaker", "id", "knowledges", "gold_sentence", "annotated_sentences"]


def vote(job: Job, worker, selected: list[int]) -> None:
    item_id = assignment_next(job=job, worker=worker).assignment.item_id
    answer_submit(item_id=item_id, worker=worker, selected=selected)


def test_it_exports_votes_in_the_wowpp_schema(tmp_path: Path, people: People) -> None:
    job = make_job("relevance", items=2, overlap=2)
    vote(job, people.alice, [0, 1])
    vote(job, people.bob, [1, 4])  # k0 now complete; k1 has no answers
    out = tmp_path / "wowpp.json"
    call_command("export_dataset", "wowpp", "--job", job.slug, "--out", str(out))
    data = json.loads(out.read_text())
    assert list(data) == ["k0"]
    record = data["k0"]
    assert list(record) == RECORD_KEYS
    assert record["id"] == "ctx-0" and record["start_speaker"] == "Human" and isinstance(record["turns"], list)
    assert record["gold_sentence"] == {"chosen_Blues_1": "It originated in the Deep South."}
    assert record["knowledges"][0] == {"Blues": ["Blues is a music genre.", "It originated in the Deep South.", "Blues uses blue notes."]}
    sentences = record["annotated_sentences"]
    assert all(list(s) == ["label", "confidence", "relevance", "article"] for s in sentences)
    assert sentences[0]["label"] == "Blues <knowledge_separator> Blues is a music genre."
    assert [s["confidence"] for s in sentences] == [0.5, 1.0, 0.0, 0.0, 0.5]
    assert all(isinstance(s["confidence"], float) for s in sentences)
    assert [s["relevance"] for s in sentences] == ["notRelevant", "relevant", "notRelevant", "notRelevant", "notRelevant"]
    call_command("export_dataset", "wowpp", "--job", job.slug, "--out", str(out), "--include-incomplete")
    assert list(json.loads(out.read_text())) == ["k0"]  # k1 has no votes at all: nothing to write


def test_it_refuses_an_export_without_a_relevance_job(tmp_path: Path, acts_job: Job) -> None:
    for args, text in (([], "give --job"), (["--job", "nope"], "no annotation job"), (["--job", acts_job.slug], "not relevance")):
        with pytest.raises(CommandError, match=text):
            call_command("export_dataset", "wowpp", *args, "--out", str(tmp_path / "x.json"))


def wowpp_file(tmp_path: Path, **changes) -> Path:
    sentence = lambda text, confidence: {  # noqa: E731
        "label": f"Blues <knowledge_separator> {text}", "confidence": confidence,
        "relevance": "relevant" if confidence >= 0.6 else "notRelevant", "article": "Blues",
    }
    record = {
        "turns": ["Hi", "Do you like blues?"],
        "topic": "Blues",
        "annotated_sentences": [sentence("Blues is a genre.", 0.7), sentence("It is old.", 0.1), sentence("It is old.", 0.0)],
    }
    record.update(changes)
    path = tmp_path / "small_augmented_wow.json"
    path.write_text(json.dumps({"c1": record}))
    return path


def test_it_imports_a_file_as_a_finished_job_and_exports_it_unchanged(tmp_path: Path) -> None:
    path = wowpp_file(tmp_path)
    call_command("import_dataset", "wowpp", str(path), "--job", "small")
    job = Job.objects.get(slug="small")
    assert (job.kind, job.overlap, job.is_active) == ("relevance", 10, False)
    assert Item.objects.get(job=job).imported_tally == {"annotators": 10, "selected": [7, 1, 0]}
    out = tmp_path / "again.json"
    call_command("export_dataset", "wowpp", "--job", "small", "--out", str(out))
    assert out.read_bytes() == path.read_bytes()


def test_it_infers_each_contexts_annotators_and_reexports_exact_confidences(tmp_path: Path) -> None:
    sentence = lambda text, confidence: {  # noqa: E731
        "label": f"Mars <knowledge_separator> {text}", "confidence": confidence,
        "relevance": "relevant" if confidence >= 0.6 else "notRelevant", "article": "Mars",
    }
    nine = [sentence("Mars is red.", 0.777777778), sentence("It is cold.", 0.111111111), sentence("Rovers.", 0.0)]
    ten = [sentence("Mars is red.", 0.7), sentence("It is cold.", 1.0)]
    few = [sentence("Mars is red.", 1.0), sentence("It is cold.", 0.0)]  # fits 10 (the job's overlap) and 1
    twenty = [sentence("Mars is red.", 0.35)]
    records = {f"c{n}": {"turns": ["Hi", "Mars?"], "topic": "Mars", "annotated_sentences": s}
               for n, s in enumerate([nine, ten, few, twenty])}
    path = tmp_path / "mixed_augmented_wow.json"
    path.write_text(json.dumps(records))
    call_command("import_dataset", "wowpp", str(path), "--job", "mixed")
    tallies = [item.imported_tally for item in Item.objects.filter(job__slug="mixed").order_by("position")]
    assert [t["annotators"] for t in tallies] == [9, 10, 10, 20]
    assert tallies[0]["selected"] == [7, 1, 0] and tallies[0]["confidences"] == [0.777777778, 0.111111111, 0.0]
    assert "confidences" not in tallies[1]  # 7/10 is exactly 0.7: the counts say it all
    out = tmp_path / "again.json"
    call_command("export_dataset", "wowpp", "--job", "mixed", "--out", str(out))
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("changes", "text"),
    [
        ({"annotated_sentences": [{"label": "x", "article": "Blues", "confidence": 0.123, "relevance": "notRelevant"}]},
         "not whole numbers of votes for any number of annotators up to 20"),
        ({"annotated_sentences": [{"label": "x", "article": "Blues", "confidence": 0.7, "relevance": "notRelevant"}]},
         "disagrees with confidence 0.7"),
        ({"id": "other"}, "id must equal the key"),
        ({"turns": "Hi"}, "turns must be a non-empty list"),
        ({"start_speaker": "Bot"}, "start_speaker"),
    ],
)
def test_it_refuses_a_bad_wowpp_file_and_stores_nothing(tmp_path: Path, changes: dict, text: str) -> None:
    with pytest.raises(CommandError, match=text):
        call_command("import_dataset", "wowpp", str(wowpp_file(tmp_path, **changes)))
    assert not Job.objects.exists() and not Item.objects.exists()


def test_it_refuses_an_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_dataset", "wowpp", str(tmp_path / "broken.json"))
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_dataset", "wowpp", str(tmp_path / "missing.json"))
    with pytest.raises(CommandError, match="unknown dataset"):
        call_command("import_dataset", "nope", str(tmp_path / "broken.json"))


def test_it_imports_relevance_gold_items_into_a_job(tmp_path: Path, relevance_job: Job) -> None:
    call_command("import_dataset", "wowpp", str(wowpp_file(tmp_path)), "--job", relevance_job.slug, "--role", "gold")
    gold = Item.objects.get(job=relevance_job, role=ItemRole.GOLD)
    assert gold.gold == {"selected": [0]} and gold.imported_tally is None


def test_it_imports_wizard_of_wikipedia_turns_to_label(tmp_path: Path) -> None:
    dialogue = {
        "chosen_topic": "Blues", "persona": "", "wizard_eval": 5, "chosen_topic_passage": ["Blues is a genre."],
        "dialog": [
            {"speaker": "0_Apprentice", "text": "Hi!", "retrieved_topics": ["Jazz"], "retrieved_passages": [{"Jazz": ["Jazz swings."]}]},
            {"speaker": "1_Wizard", "text": "Blues is great.", "retrieved_topics": [], "retrieved_passages": [],
             "checked_sentence": {"chosen_Blues_0": "Blues is a genre."}, "checked_passage": {"chosen_topic_0_Blues": "Blues"}},
        ],
    }
    path = tmp_path / "wow.json"
    path.write_text(json.dumps([dialogue]))
    call_command("import_dataset", "wow-relevance", str(path), "--job", "wow-rel")
    item = Item.objects.get(job__slug="wow-rel")
    assert item.payload["turns"] == ["Hi!"] and item.payload["start_speaker"] == "Human"
    assert [c["sentence"] for c in item.payload["candidates"]] == ["Blues is a genre.", "Jazz swings."]


@pytest.mark.skipif(not REAL_FILE.exists(), reason="the shared WOW++ reference file is not here")
def test_it_reexports_the_real_wowpp_file_byte_for_byte(tmp_path: Path) -> None:
    call_command("import_dataset", "wowpp", str(REAL_FILE), "--job", "wowpp-seen")
    out = tmp_path / "out.json"
    call_command("export_dataset", "wowpp", "--job", "wowpp-seen", "--out", str(out))
    assert out.read_bytes() == REAL_FILE.read_bytes()
    original = json.loads(REAL_FILE.read_text())
    assert Item.objects.filter(job__slug="wowpp-seen").count() == len(original) == 198
