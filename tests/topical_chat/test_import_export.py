"""Topical-Chat files in and out: a sample in the release's format (sample.py) imported and exported
byte for byte, with its reading sets of either build; a collected conversation exported in the
release's shape (schema.py); a bad file refused with where and why, storing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collect.exporters import ExportError, ExportOptions, export_dataset
from collect.models import Campaign, Message, Room
from collect.services import rooms
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from collect.tasktypes.topical_chat.release import SPLITS
from tests.topical_chat import sample
from tests.topical_chat.conftest import make_campaign, make_room
from tests.topical_chat.schema import conversations_problems, reading_sets_problems

pytestmark = pytest.mark.django_db


def import_sample(path: Path, **options) -> None:
    call_command("import_dataset", "topical_chat", str(path), verbosity=0, stdout=open("/dev/null", "w"), **options)


def export(out: Path, *campaigns: str) -> None:
    call_command("export_dataset", "topical_chat", out=out, campaigns=list(campaigns), verbosity=0, stdout=open("/dev/null", "w"))


def test_the_sample_is_in_the_releases_shape() -> None:
    conversations = sample.conversations()
    assert conversations_problems(conversations) == []
    assert reading_sets_problems(sample.post_build(), "post-build", conversations) == []
    assert reading_sets_problems(sample.pre_build(), "pre-build", conversations) == []


@pytest.mark.parametrize("build", ["post-build", "pre-build"])
def test_an_imported_file_exports_byte_for_byte(tmp_path: Path, build: str) -> None:
    path = sample.write(tmp_path / "release", build=build)
    import_sample(path, job="tc-sample")
    conversation = TopicalConversation.objects.get(conversation_id=sample.IDS[0])
    assert conversation.split == "valid_freq" and conversation.reading_set_build == build
    assert list(Message.objects.filter(room=conversation.room).values_list("role", flat=True)) == ["agent_1", "agent_2"] * 2
    assert TopicalTurn.objects.get(room=conversation.room, seq=4).turn_rating == ""

    export(tmp_path / "out", "tc-sample")
    for relative in ("conversations/valid_freq.json", f"reading_sets/{build}/valid_freq.json"):
        assert (tmp_path / "out" / relative).read_bytes() == (tmp_path / "release" / relative).read_bytes(), relative
    for split in SPLITS:
        if split != "valid_freq":
            assert (tmp_path / "out" / "conversations" / f"{split}.json").read_text() == "{}"
    assert (tmp_path / "out" / "reading_sets" / "pre-build").exists() == (build == "pre-build")


def test_a_file_without_reading_sets_imports_and_exports_its_conversations(tmp_path: Path) -> None:
    path = sample.write(tmp_path / "release", split="test_rare", build=None)
    import_sample(path, job="tc-bare")
    result = export_dataset("topical_chat", tmp_path / "out", ExportOptions(campaigns=("tc-bare",)))
    assert (tmp_path / "out/conversations/test_rare.json").read_bytes() == path.read_bytes()
    assert (tmp_path / "out/reading_sets/post-build/test_rare.json").read_text() == "{}"
    assert result.notes == ["3 imported conversation(s) had no reading set: they are in conversations/ only"]


def test_a_collected_conversation_exports_in_the_releases_shape(jazz_source, tmp_path: Path) -> None:
    campaign = make_campaign(jazz_source, configs=["A"])
    paired = make_room(campaign)
    lines = [("Do you like jazz?", ["Personal Knowledge", "AS1"], "Curious to dive deeper", None),
             ("Yes! Louis Armstrong was born in New Orleans.", ["FS2", "FS1"], "Happy", "Excellent"),
             ("Caf\u00e9 au lait and jazz in New Orleans, then.", ["FS1"], "Surprised", "Good"),
             ("Deal.", ["Personal Knowledge"], "Neutral", "Passable")]
    for n, (text, sources, sentiment, rating) in enumerate(lines):
        seat = paired.first if n % 2 == 0 else paired.second
        frame = {"knowledge_source": sources, "sentiment": sentiment, **({"turn_rating": rating} if rating else {})}
        rooms.message_post(room_id=paired.room.pk, assignment=seat.assignment, client_id=f"c{n}", text=text, frame=frame)
    rooms.chat_end(room_id=paired.room.pk, assignment=paired.first.assignment)
    rooms.rating_submit(room_id=paired.room.pk, assignment=paired.first.assignment, frame={"conversation_rating": "Good", "turn_rating": "Poor"})
    rooms.rating_submit(room_id=paired.room.pk, assignment=paired.second.assignment, frame={"conversation_rating": "Excellent"})

    export(tmp_path / "out", campaign.slug)
    found = {}
    for split in SPLITS:
        text = (tmp_path / "out" / "conversations" / f"{split}.json").read_text(encoding="ascii")
        data = json.loads(text)
        assert text == json.dumps(data, indent=2)  # the release's formatting, \u escapes included
        found.update(data)
        sets = json.loads((tmp_path / "out" / "reading_sets" / "post-build" / f"{split}.json").read_text())
        assert reading_sets_problems(sets, "post-build", data) == []
    assert conversations_problems(found) == []
    [(conversation_id, conversation)] = found.items()
    assert conversation_id == f"t_{paired.room.pk}" and conversation["config"] == "A"
    assert conversation["article_url"] == "https://en.wikipedia.org/wiki/Jazz"
    assert [t["knowledge_source"] for t in conversation["content"]] == [
        ["AS1", "Personal Knowledge"], ["FS1", "FS2"], ["FS1"], ["Personal Knowledge"]]
    assert [t["turn_rating"] for t in conversation["content"]] == ["Excellent", "Good", "Passable", "Poor"]
    assert conversation["content"][2]["message"] == "Caf\u00e9 au lait and jazz in New Orleans, then."
    assert conversation["conversation_rating"] == {"agent_1": "Good", "agent_2": "Excellent"}


def test_collected_conversations_of_a_held_out_topic_go_to_the_rare_splits(jazz_source, tmp_path: Path) -> None:
    campaign = make_campaign(jazz_source)
    paired = make_room(campaign)
    rooms.message_post(room_id=paired.room.pk, assignment=paired.first.assignment, client_id="c1", text="Hi",
                       frame={"knowledge_source": ["FS1"], "sentiment": "Happy"})
    Room.objects.filter(pk=paired.room.pk).update(status="complete")
    export_dataset("topical_chat", tmp_path / "all", ExportOptions(holdout_topics=1.0))
    export_dataset("topical_chat", tmp_path / "none", ExportOptions(holdout_topics=0.0, valid=0.0, test=0.0))
    rare = {s: json.loads((tmp_path / "all" / "conversations" / f"{s}.json").read_text()) for s in ("valid_rare", "test_rare")}
    assert sum(len(d) for d in rare.values()) == 1
    assert list(json.loads((tmp_path / "none" / "conversations" / "train.json").read_text())) == [f"t_{paired.room.pk}"]


def test_a_file_imported_into_two_campaigns_is_exported_one_campaign_at_a_time(tmp_path: Path) -> None:
    path = sample.write(tmp_path / "release")
    import_sample(path, job="tc-one")
    import_sample(path, job="tc-two")
    with pytest.raises(ExportError, match="is in two of the exported campaigns"):
        export_dataset("topical_chat", tmp_path / "out", ExportOptions(campaigns=("tc-one", "tc-two")))
    assert not (tmp_path / "out" / "conversations").exists() or not any((tmp_path / "out" / "conversations").iterdir())


def _mutated(change) -> tuple[dict, dict]:
    conversations, sets = sample.conversations(), sample.post_build()
    change(conversations, sets)
    return conversations, sets


FIRST = sample.IDS[0]
BAD = [
    (lambda c, s: c[FIRST].pop("content"), f"conversation '{FIRST}': missing 'content'"),
    (lambda c, s: c[FIRST].update(topic="Jazz"), f"conversation '{FIRST}': unknown key 'topic'"),
    (lambda c, s: c[FIRST].update(config="E"), f"conversation '{FIRST}', config: 'E' is not one of"),
    (lambda c, s: c[FIRST].update(content=[]), f"conversation '{FIRST}', content: expected a non-empty list"),
    (lambda c, s: c[FIRST]["content"][1].update(agent="agent_3"), f"conversation '{FIRST}', content[1].agent: 'agent_3'"),
    (lambda c, s: c[FIRST]["content"][0].update(sentiment="Curious to Dive Deeper"), "content[0].sentiment: 'Curious to Dive Deeper' is not one of"),
    (lambda c, s: c[FIRST]["content"][0].update(knowledge_source=["FS4"]), "content[0].knowledge_source[0]: 'FS4' is not one of"),
    (lambda c, s: c[FIRST]["content"][0].update(knowledge_source="FS1"), "content[0].knowledge_source: expected a list"),
    (lambda c, s: c[FIRST]["content"][2].update(turn_rating="Great"), "content[2].turn_rating: 'Great' is not one of"),
    (lambda c, s: c[FIRST]["content"][2].update(message=None), "content[2].message: expected a string, got NoneType"),
    (lambda c, s: c[FIRST]["content"][2].update(message="a\x00b"), "content[2].message: holds a NUL character"),
    (lambda c, s: c[FIRST]["content"][2].update(message="a\ud800b"), f"conversation '{FIRST}', content[2].message holds a lone surrogate (U+D800)"),
    (lambda c, s: c[FIRST]["conversation_rating"].pop("agent_2"), "conversation_rating: missing 'agent_2'"),
    (lambda c, s: s[FIRST].update(config="B"), f"conversation '{FIRST}', config: 'B', but the conversation's is 'A'"),
    (lambda c, s: s.pop(FIRST), f"has no reading set for conversation '{FIRST}'"),
    (lambda c, s: s[FIRST]["agent_1"]["FS1"].update(fun_facts="one"), f"conversation '{FIRST}', agent_1.FS1.fun_facts: expected a list"),
    (lambda c, s: s[FIRST]["agent_2"]["FS2"].pop("shortened_wiki_lead_section"), "agent_2.FS2: expected one of shortened_wiki_lead_section or summarized_wiki_lead_section"),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_a_bad_file_is_refused_with_where_and_why_and_nothing_stored(tmp_path: Path, change, message: str) -> None:
    conversations, sets = _mutated(change)
    root = tmp_path / "release"
    (root / "conversations").mkdir(parents=True)
    (root / "reading_sets" / "post-build").mkdir(parents=True)
    # json.dumps escapes a lone surrogate, as a file would carry it.
    (root / "conversations" / "train.json").write_text(json.dumps(conversations, indent=2), encoding="ascii")
    (root / "reading_sets" / "post-build" / "train.json").write_text(json.dumps(sets, indent=2), encoding="ascii")
    with pytest.raises(CommandError) as refused:
        import_sample(root / "conversations" / "train.json")
    assert message in str(refused.value)
    assert not Campaign.objects.exists() and not Room.objects.exists() and not TopicalTurn.objects.exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "expected a JSON object of conversations by id, got list"),
        ("{}", "no conversations"),
        ('{"t_1": {"config": "A"', "invalid JSON"),
        ('{"t_1": {}, "t_1": {}}', "the key 't_1' appears twice in one object"),
    ],
)
def test_a_file_that_is_no_conversations_object_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "valid_rare.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        import_sample(path)
    assert not Campaign.objects.exists()


def test_a_file_whose_name_names_no_split_needs_one(tmp_path: Path) -> None:
    path = sample.write(tmp_path / "release", split="my_chats", build=None)
    with pytest.raises(CommandError, match="does not name its split"):
        import_sample(path)
    import_sample(path, split="test_freq", job="tc-given")
    assert set(TopicalConversation.objects.values_list("split", flat=True)) == {"test_freq"}
