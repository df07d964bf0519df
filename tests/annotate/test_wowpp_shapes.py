"""Every shape the released WOW++ files have: the test-unseen file's full records, two of which carry
`"gold_sentence": {}`, and the test-seen file's three-key records; each imports and exports
byte-identical. Only a truly malformed record is refused, by dialogue id and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Item, Job

pytestmark = pytest.mark.django_db

SEEN_FILE = Path(__file__).resolve().parents[3] / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"
SEP = " <knowledge_separator> "


def sentence(article: str, text: str, confidence: float) -> dict:
    return {"label": f"{article}{SEP}{text}", "confidence": confidence,
            "relevance": "relevant" if confidence >= 0.6 else "notRelevant", "article": article}


def unseen_record(key: str, *, gold: object, sentences: list[dict], knowledges: list | None = None) -> dict:
    """A record in the key order of full_test_topic_augmented_wow.json."""
    return {
        "turns": ["I have a broken heart from losing my dog.", "Oh I'm so sorry to hear that.. how old was he?"],
        "topic": "Broken heart",
        "start_speaker": "Assistant",
        "id": key,
        "knowledges": [{"Broken heart": ["A broken heart is a metaphor.", "It is intense emotional pain."]}]
        if knowledges is None else knowledges,
        "gold_sentence": gold,
        "annotated_sentences": sentences,
    }


def round_trip(tmp_path: Path, data: dict, slug: str) -> bytes:
    path = tmp_path / f"{slug}_augmented_wow.json"
    path.write_text(json.dumps(data))
    call_command("import_dataset", "wowpp", str(path), "--job", slug)
    out = tmp_path / f"{slug}-again.json"
    call_command("export_dataset", "wowpp", "--job", slug, "--out", str(out))
    assert out.read_bytes() == path.read_bytes()
    return path.read_bytes()


def test_it_round_trips_unseen_records_with_an_empty_gold_sentence(tmp_path: Path) -> None:
    ten = [sentence("Broken heart", "A broken heart is a metaphor.", 0.7), sentence("Dog", "Dogs are loyal.", 0.1)]
    nine = [sentence("Broken heart", "It is intense emotional pain.", 0.777777778), sentence("Dog", "Dogs bark.", 0.0)]
    data = {
        "6554a9f3-a848-4b19-9589-6f2f0304efc8": unseen_record("6554a9f3-a848-4b19-9589-6f2f0304efc8", gold={}, sentences=ten),
        "505d9397-7416-496d-ad78-9f3f83a6a198": unseen_record(
            "505d9397-7416-496d-ad78-9f3f83a6a198", gold={"chosen_Broken_heart_1": "It is intense emotional pain."},
            sentences=nine,
        ),
        "82014392-f549-419f-9a13-dfc3fda15e34": unseen_record(
            "82014392-f549-419f-9a13-dfc3fda15e34", gold=None, sentences=[], knowledges=[]
        ),
    }
    round_trip(tmp_path, data, "unseen")
    items = {item.key: item for item in Item.objects.filter(job__slug="unseen")}
    assert items["6554a9f3-a848-4b19-9589-6f2f0304efc8"].payload["gold_sentence"] == {}
    assert [i.imported_tally["annotators"] for i in items.values()] == [10, 9, 10]


@pytest.mark.skipif(not SEEN_FILE.exists(), reason="the shared WOW++ reference file is not here")
def test_it_round_trips_real_contexts_given_the_unseen_files_keys(tmp_path: Path) -> None:
    seen = json.loads(SEEN_FILE.read_text(encoding="utf-8"))
    keys = list(seen)[:3]
    data = {}
    for n, key in enumerate(keys):
        real = seen[key]
        record = {"turns": real["turns"], "topic": real["topic"], "start_speaker": ("Human", "Assistant")[n % 2], "id": key,
                  "knowledges": [{real["topic"]: [s["label"].split(SEP, 1)[1] for s in real["annotated_sentences"][:3]]}],
                  "gold_sentence": {} if n == 0 else {f"chosen_{real['topic'].replace(' ', '_')}_0": real["turns"][0]},
                  "annotated_sentences": real["annotated_sentences"]}
        data[key] = record
    round_trip(tmp_path, data, "seen-as-unseen")
    assert Item.objects.filter(job__slug="seen-as-unseen").count() == 3


@pytest.mark.parametrize(
    ("gold", "text"),
    [
        ({"chosen_A_0": "x", "chosen_B_1": "y"}, "gold_sentence must be {} or a one-key object"),
        ({"chosen_A_0": 3}, "gold_sentence must be {} or a one-key object"),
        (["chosen_A_0"], "gold_sentence must be {} or a one-key object"),
    ],
)
def test_it_refuses_a_malformed_gold_sentence_naming_the_dialogue(tmp_path: Path, gold: object, text: str) -> None:
    data = {"c1": unseen_record("c1", gold=gold, sentences=[sentence("Dog", "Dogs bark.", 0.0)])}
    path = tmp_path / "bad_augmented_wow.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CommandError, match=f"dialogue c1: {text}"):
        call_command("import_dataset", "wowpp", str(path))
    assert not Job.objects.exists() and not Item.objects.exists()


def test_it_keeps_an_unknown_key_where_the_record_had_it(tmp_path: Path) -> None:
    """A key this importer does not know, between known ones, is written back in its place (and a
    record in another key order keeps that order), so the file round-trips byte-identical."""
    record = unseen_record("c1", gold={}, sentences=[sentence("Dog", "Dogs bark.", 0.0)])
    middle = {key: record[key] for key in ("turns", "topic")} | {"annotator_notes": ["kept here"]}
    middle |= {key: value for key, value in record.items() if key not in middle}
    reordered = {"topic": record["topic"], "turns": record["turns"], "annotated_sentences": record["annotated_sentences"]}
    round_trip(tmp_path, {"c1": middle, "c2": reordered | {"id": "c2"}}, "unknown-keys")
    item = Item.objects.get(job__slug="unknown-keys", key="c1")
    assert item.payload["extra"] == {"annotator_notes": ["kept here"]}
