"""The Wizard of Wikipedia export: exact format (docs/schemas.md#wizard-of-wikipedia), splits, and
that ParlAI's `wizard_of_wikipedia` teachers can read it."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from collect.exporters import ExportOptions, export_dataset
from collect.tasktypes.wow.exporter import ALL_DIALOGUES, FILES, TEST_TOPIC, VALID_TOPIC
from collect.models import Campaign, Room, RoomStatus
from tests.factories import add_message, make_campaign, make_persona, make_room

NO = "no_passages_used"
SENTINEL = {NO: NO}
DIALOGUE_KEYS = {"chosen_topic", "persona", "wizard_eval", "chosen_topic_passage", "dialog"}
TURN_KEYS = {"speaker", "text", "retrieved_topics", "retrieved_passages"}
WIZARD_KEYS = TURN_KEYS | {"checked_sentence", "checked_passage"}
# Wide splits so that a few dozen rooms fill every file.
WIDE = dict(holdout_topics=0.4, valid=0.2, test=0.2)


def _u(title: str) -> str:
    return title.replace(" ", "_")


def wow_room(
    campaign: Campaign,
    *,
    topic: str = "Science fiction",
    first_speaker: str = "wizard",
    messages: int = 6,
    status: str = RoomStatus.COMPLETE,
    rating: int | None = 4,
    marker: str = "",
) -> Room:
    """A room whose wizard checks, in turn, a sentence of the topic passage, of the partner's
    passages, of their own previous passages, then nothing; as the protocol stores them."""
    room = make_room(campaign, topic=topic, first_speaker=first_speaker, status=status, rating=rating)
    roles = ["wizard", "apprentice"] if first_speaker == "wizard" else ["apprentice", "wizard"]
    history: list[list[dict[str, list[str]]]] = []
    for i in range(messages):
        role = roles[i % 2]
        passages = [{f"{topic} part {i} {k}": [f"{topic} fact {i}.{k}.{s}." for s in range(3)]} for k in range(2)]
        checked: dict[str, Any] = {}
        if role == "wizard":
            wish = ("chosen", "partner", "self", "none")[(i // 2) % 4]
            if wish == "partner" and i < 1 or wish == "self" and i < 2:
                wish = "chosen"
            if wish == "chosen":
                checked = {
                    "checked_sentence": {f"chosen_{_u(topic)}_1": room.topic_passage[1]},
                    "checked_passage": {f"chosen_topic_0_{_u(topic)}": topic},
                }
            elif wish in ("partner", "self"):
                shown = history[i - 1] if wish == "partner" else history[i - 2]
                (title, sentences), = shown[1].items()
                checked = {
                    "checked_sentence": {f"{wish}_{_u(title)}_2": sentences[2]},
                    "checked_passage": {f"{wish}_1_{_u(title)}": title},
                }
        add_message(room, role, f"{marker} says {i}".strip(), retrieved_passages=passages, **checked)
        history.append(passages)
    return room


def export(tmp_path: Path, name: str = "out", **options: Any) -> dict[str, list[dict[str, Any]]]:
    out = tmp_path / name
    export_dataset("wow", out, ExportOptions(**options))
    return {file: json.loads((out / file).read_text(encoding="utf-8")) for file in FILES}


def everything(files: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [d for file in FILES for d in files[file]]


def marker_of(dialogue: dict[str, Any]) -> str:
    return dialogue["dialog"][0]["text"].split(" says ")[0]


@pytest.fixture
def wow_campaign(db) -> Campaign:
    return make_campaign(slug="wow-export")


# --- Format -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_writes_five_json_lists_even_when_empty(tmp_path: Path) -> None:
    files = export(tmp_path)
    assert files == {file: [] for file in FILES}
    assert json.loads((tmp_path / "out" / ALL_DIALOGUES).read_text()) == []
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted([*FILES, ALL_DIALOGUES])


@pytest.mark.django_db
def test_it_exports_exact_keys_and_types(tmp_path: Path, wow_campaign: Campaign) -> None:
    persona = make_persona(wow_campaign, text="  I Like Science Fiction Novels. ")
    room = wow_room(wow_campaign, messages=7)
    Room.objects.filter(pk=room.pk).update(persona=persona)

    files = export(tmp_path)
    [d] = everything(files)
    [file] = [name for name, dialogues in files.items() if dialogues]
    # Valid and test files add candidate_responses to wizard turns (tests/collect/test_export_wow_candidates.py).
    wizard_keys = WIZARD_KEYS | ({"candidate_responses"} if file != "train.json" else set())

    assert set(d) == DIALOGUE_KEYS
    assert d["chosen_topic"] == "Science fiction"
    assert d["persona"] == "i like science fiction novels."
    assert d["wizard_eval"] == 4 and isinstance(d["wizard_eval"], int)
    assert d["chosen_topic_passage"] == room.topic_passage
    assert [t["text"] for t in d["dialog"]] == [f"says {i}" for i in range(7)]
    for turn in d["dialog"]:
        wizard = "Wizard" in turn["speaker"]
        assert set(turn) == (wizard_keys if wizard else TURN_KEYS)
        assert isinstance(turn["speaker"], str) and isinstance(turn["text"], str)
        assert all(isinstance(t, str) for t in turn["retrieved_topics"])
        assert all(isinstance(p, dict) and len(p) == 1 for p in turn["retrieved_passages"])
        assert turn["retrieved_topics"] == [next(iter(p)) for p in turn["retrieved_passages"]]
        for passage in turn["retrieved_passages"]:
            (sentences,) = passage.values()
            assert all(isinstance(s, str) for s in sentences)
        if wizard:
            for key in ("checked_sentence", "checked_passage"):
                assert isinstance(turn[key], dict) and len(turn[key]) == 1
                assert all(isinstance(x, str) for x in (*turn[key], *turn[key].values()))
    wizard_turns = [t for t in d["dialog"] if "Wizard" in t["speaker"]]
    assert wizard_turns[0]["checked_sentence"] == {"chosen_Science_fiction_1": room.topic_passage[1]}
    assert wizard_turns[0]["checked_passage"] == {"chosen_topic_0_Science_fiction": "Science fiction"}
    assert wizard_turns[1]["checked_sentence"] == {"partner_Science_fiction_part_1_1_2": "Science fiction fact 1.1.2."}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("first_speaker", "speakers"),
    [
        ("wizard", ["0_Wizard", "1_Apprentice", "0_Wizard", "1_Apprentice"]),
        ("apprentice", ["0_Apprentice", "1_Wizard", "0_Apprentice", "1_Wizard"]),
    ],
)
def test_it_numbers_speakers_in_speaking_order(
    tmp_path: Path, wow_campaign: Campaign, first_speaker: str, speakers: list[str]
) -> None:
    wow_room(wow_campaign, first_speaker=first_speaker, messages=4)
    [d] = everything(export(tmp_path))
    assert [t["speaker"] for t in d["dialog"]] == speakers


@pytest.mark.django_db
def test_it_uses_the_sentinel_when_no_knowledge_was_checked(tmp_path: Path, wow_campaign: Campaign) -> None:
    room = make_room(wow_campaign, status=RoomStatus.COMPLETE, first_speaker="apprentice")
    add_message(room, "apprentice", "hi", retrieved_passages=None)
    add_message(room, "wizard", "hello", checked_sentence=None, checked_passage=None)
    add_message(room, "apprentice", "bye", retrieved_passages=[{"Tea": ["Tea is a drink."]}])
    add_message(room, "wizard", "ok", checked_sentence=dict(SENTINEL), checked_passage=dict(SENTINEL))

    [d] = everything(export(tmp_path))

    wizard_turns = [t for t in d["dialog"] if t["speaker"] == "1_Wizard"]
    assert [t["checked_sentence"] for t in wizard_turns] == [SENTINEL, SENTINEL]
    assert [t["checked_passage"] for t in wizard_turns] == [SENTINEL, SENTINEL]
    assert d["dialog"][0]["retrieved_passages"] == [] and d["dialog"][0]["retrieved_topics"] == []
    assert d["dialog"][2]["retrieved_topics"] == ["Tea"]


@pytest.mark.django_db
def test_it_leaves_checked_keys_off_apprentice_turns(tmp_path: Path, wow_campaign: Campaign) -> None:
    room = make_room(wow_campaign, status=RoomStatus.COMPLETE)
    add_message(room, "wizard", "hi", checked_sentence=dict(SENTINEL), checked_passage=dict(SENTINEL))
    # Even if something were stored on an apprentice message, the format has no place for it.
    add_message(room, "apprentice", "hey", checked_sentence={"x_Tea_0": "Tea."}, checked_passage={"x_0_Tea": "Tea"})
    [d] = everything(export(tmp_path))
    assert "checked_sentence" not in d["dialog"][1] and "checked_passage" not in d["dialog"][1]


@pytest.mark.django_db
def test_it_gives_minus_one_and_empty_persona_when_missing(tmp_path: Path, wow_campaign: Campaign) -> None:
    wow_room(wow_campaign, rating=None, messages=2)
    [d] = everything(export(tmp_path))
    assert d["wizard_eval"] == -1 and d["persona"] == ""


@pytest.mark.django_db
def test_it_splits_a_passage_dict_with_several_titles(tmp_path: Path, wow_campaign: Campaign) -> None:
    room = make_room(wow_campaign, status=RoomStatus.COMPLETE, first_speaker="apprentice")
    add_message(room, "apprentice", "hi", retrieved_passages=[{"Tea": ["Tea."], "Coffee": ["Coffee."]}])
    [d] = everything(export(tmp_path))
    assert d["dialog"][0]["retrieved_passages"] == [{"Tea": ["Tea."]}, {"Coffee": ["Coffee."]}]
    assert d["dialog"][0]["retrieved_topics"] == ["Tea", "Coffee"]


# --- Which rooms --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_exports_incomplete_rooms_only_when_asked(tmp_path: Path, wow_campaign: Campaign) -> None:
    wow_room(wow_campaign, marker="done")
    wow_room(wow_campaign, marker="cut", status=RoomStatus.INCOMPLETE)
    for status in (RoomStatus.CHOOSING_TOPIC, RoomStatus.CHATTING, RoomStatus.RATING):
        wow_room(wow_campaign, marker=status, status=status)

    assert {marker_of(d) for d in everything(export(tmp_path, "a"))} == {"done"}
    assert {marker_of(d) for d in everything(export(tmp_path, "b", include_incomplete=True))} == {"done", "cut"}


@pytest.mark.django_db
def test_it_skips_rooms_without_messages(tmp_path: Path, wow_campaign: Campaign) -> None:
    make_room(wow_campaign, status=RoomStatus.COMPLETE)
    wow_room(wow_campaign, marker="talked")
    out = io.StringIO()
    call_command("export_dataset", "wow", "--out", str(tmp_path / "out"), stdout=out)
    assert [marker_of(d) for d in everything(_read(tmp_path / "out"))] == ["talked"]
    assert "skipped 1 room(s) without messages" in out.getvalue()


@pytest.mark.django_db
def test_it_filters_by_campaign(tmp_path: Path, wow_campaign: Campaign) -> None:
    other = make_campaign(slug="wow-other")
    third = make_campaign(slug="wow-third")
    wow_room(wow_campaign, marker="mine")
    wow_room(other, marker="other")
    wow_room(third, marker="third")

    def run(out: str, *campaigns: str) -> None:
        call_command("export_dataset", "wow", "--out", str(tmp_path / out), *campaigns, stdout=io.StringIO())

    run("a", "--campaign", "wow-export")
    run("b", "--campaign", "wow-export", "wow-third")  # several after one flag ...
    run("c", "--campaign", "wow-export", "--campaign", "wow-third")  # ... or the flag repeated

    assert {marker_of(d) for d in everything(_read(tmp_path / "a"))} == {"mine"}
    assert {marker_of(d) for d in everything(_read(tmp_path / "b"))} == {"mine", "third"}
    assert {marker_of(d) for d in everything(_read(tmp_path / "c"))} == {"mine", "third"}
    with pytest.raises(CommandError, match="no campaign with slug: nope"):
        run("d", "--campaign", "wow-export", "nope")


@pytest.mark.django_db
def test_it_leaves_out_campaigns_of_other_protocols(tmp_path: Path, wow_campaign: Campaign) -> None:
    other = make_campaign(slug="not-wow", protocol="curiosity")
    wow_room(wow_campaign, marker="wow")
    wow_room(other, marker="curiosity")
    assert [marker_of(d) for d in everything(export(tmp_path))] == ["wow"]
    with pytest.raises(CommandError, match="not Wizard of Wikipedia campaigns: not-wow"):
        call_command("export_dataset", "wow", "--out", str(tmp_path / "x"), "--campaign", "not-wow")


# --- Splits -------------------------------------------------------------------------------------


def _many_rooms(campaign: Campaign, topics: int = 30, per_topic: int = 3) -> None:
    for t in range(topics):
        for r in range(per_topic):
            wow_room(campaign, topic=f"Topic {t}", marker=f"t{t}r{r}", messages=2)


@pytest.mark.django_db
def test_it_puts_every_dialogue_in_exactly_one_file(tmp_path: Path, wow_campaign: Campaign) -> None:
    _many_rooms(wow_campaign)
    files = export(tmp_path, seed=7, **WIDE)
    markers = [marker_of(d) for d in everything(files)]
    assert sorted(markers) == sorted(f"t{t}r{r}" for t in range(30) for r in range(3))
    assert all(files[file] for file in FILES), {file: len(files[file]) for file in FILES}


@pytest.mark.django_db
def test_it_keeps_held_out_topics_out_of_every_other_file(tmp_path: Path, wow_campaign: Campaign) -> None:
    _many_rooms(wow_campaign)
    files = export(tmp_path, seed=7, **WIDE)
    held_out = {d["chosen_topic"] for file in (VALID_TOPIC, TEST_TOPIC) for d in files[file]}
    seen = {d["chosen_topic"] for file in FILES if file not in (VALID_TOPIC, TEST_TOPIC) for d in files[file]}
    assert held_out and seen
    assert held_out.isdisjoint(seen)
    valid_topics = {d["chosen_topic"] for d in files[VALID_TOPIC]}
    assert valid_topics.isdisjoint(d["chosen_topic"] for d in files[TEST_TOPIC])


@pytest.mark.django_db
def test_it_holds_out_a_topic_whatever_its_case(tmp_path: Path, wow_campaign: Campaign) -> None:
    for t in range(30):
        wow_room(wow_campaign, topic=f"Topic {t}", marker=f"a{t}", messages=2)
        wow_room(wow_campaign, topic=f" topic {t}", marker=f"b{t}", messages=2)
    files = export(tmp_path, seed=3, **WIDE)
    where = {marker_of(d): file for file in FILES for d in files[file]}
    held = {VALID_TOPIC, TEST_TOPIC}
    assert all((where[f"a{t}"] in held) == (where[f"b{t}"] in held) for t in range(30))


@pytest.mark.django_db
def test_it_is_deterministic_for_a_seed(tmp_path: Path, wow_campaign: Campaign) -> None:
    _many_rooms(wow_campaign)
    export(tmp_path, "a", seed=1, **WIDE)
    export(tmp_path, "b", seed=1, **WIDE)
    export(tmp_path, "c", seed=2, **WIDE)
    same = [(tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in FILES]
    other = [(tmp_path / "a" / f).read_bytes() == (tmp_path / "c" / f).read_bytes() for f in FILES]
    assert all(same)
    assert not all(other)


@pytest.mark.django_db
def test_it_keeps_each_dialogue_in_its_file_as_data_grows(tmp_path: Path, wow_campaign: Campaign) -> None:
    _many_rooms(wow_campaign, topics=15)
    before = {marker_of(d): file for file, ds in export(tmp_path, "a", seed=5, **WIDE).items() for d in ds}
    for t in range(10, 25):
        wow_room(wow_campaign, topic=f"Topic {t}", marker=f"late{t}", messages=2)
    after = {marker_of(d): file for file, ds in export(tmp_path, "b", seed=5, **WIDE).items() for d in ds}
    assert {m: after[m] for m in before} == before
    assert len(after) == len(before) + 15


@pytest.mark.django_db
def test_it_gives_the_same_files_whatever_the_chunk_size(tmp_path: Path, wow_campaign: Campaign) -> None:
    _many_rooms(wow_campaign, topics=5)
    make_room(wow_campaign, status=RoomStatus.COMPLETE)  # no messages, inside some chunk
    export(tmp_path, "small", seed=1, chunk_size=2, **WIDE)
    export(tmp_path, "large", seed=1, chunk_size=500, **WIDE)
    assert all((tmp_path / "small" / f).read_bytes() == (tmp_path / "large" / f).read_bytes() for f in FILES)


# --- Command and failures -----------------------------------------------------------------------


@pytest.mark.django_db
def test_it_prints_counts_per_file(tmp_path: Path, wow_campaign: Campaign) -> None:
    _many_rooms(wow_campaign, topics=4, per_topic=2)
    out = io.StringIO()
    call_command("export_dataset", "wow", "--out", str(tmp_path / "out"), "--seed", "3", stdout=out)
    files = _read(tmp_path / "out")
    lines = out.getvalue().splitlines()
    for file in FILES:
        assert any(line.split() == [file, str(len(files[file]))] for line in lines), lines
    assert any(line.split() == ["total", "8"] for line in lines)


@pytest.mark.django_db
def test_it_rejects_an_unknown_dataset(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="unknown dataset 'wizards'; choose one of: .*wow"):
        call_command("export_dataset", "wizards", "--out", str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


@pytest.mark.django_db
def test_it_rejects_bad_fractions(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="valid \\+ test must be at most 1"):
        call_command("export_dataset", "wow", "--out", str(tmp_path), "--valid", "0.7", "--test", "0.7")
    with pytest.raises(CommandError, match="holdout_topics must be a fraction"):
        call_command("export_dataset", "wow", "--out", str(tmp_path), "--holdout-topics", "1.5")


@pytest.mark.django_db
def test_it_keeps_the_previous_files_when_an_export_fails(tmp_path: Path, wow_campaign: Campaign) -> None:
    wow_room(wow_campaign, marker="good")
    call_command("export_dataset", "wow", "--out", str(tmp_path), stdout=io.StringIO())
    before = {f: (tmp_path / f).read_bytes() for f in FILES}
    room = wow_room(wow_campaign, marker="bad")
    room.messages.filter(seq=2).update(role="narrator")

    with pytest.raises(CommandError, match="role 'narrator' is not wizard/apprentice"):
        call_command("export_dataset", "wow", "--out", str(tmp_path), stdout=io.StringIO())

    assert {f: (tmp_path / f).read_bytes() for f in FILES} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*FILES, ALL_DIALOGUES])


def _read(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {file: json.loads((out / file).read_text(encoding="utf-8")) for file in FILES}


# --- ParlAI loader compatibility ----------------------------------------------------------------
# What parlai/tasks/wizard_of_wikipedia/agents.py takes from a dialogue, re-done here in a few
# lines: the file names its `_path` builds, the fields WizardOfWikipediaTeacher.get reads, the turn
# indexing and knowledge dict of WizardDialogKnowledgeTeacher with its checked title/sentence
# recovery, the speaker pairing of BasicdialogTeacher and the passage lookup of DocreaderTeacher.


def _first_key(d: dict[str, Any]) -> str:
    return list(d.keys())[0] if d else ""


def _first_value(d: dict[str, Any]) -> Any:
    return list(d.values())[0] if d else ""


def _checked_title_and_sentence(entry: dict[str, Any], knowledge: dict[str, list[str]]) -> tuple[str, str]:
    sentence_dict = entry.get("checked_sentence", {})
    if sentence_dict == {}:
        return NO, NO
    sentence = _first_value(sentence_dict)
    if sentence == NO:
        return NO, NO
    passage_dict = entry.get("checked_passage", "none")
    from_passage = _first_value(passage_dict) if passage_dict else ""
    from_key = " ".join(_first_key(sentence_dict).split("_")[1:-1])
    for title in (from_passage, from_key):
        if title and sentence in knowledge.get(title, []):
            return title, sentence
    return next((t for t, passage in knowledge.items() if sentence in passage), ""), sentence


def _parlai_read(files_dir: Path) -> int:
    """Reads every split as ParlAI would; returns how many wizard examples had a checked sentence
    found in the knowledge the teacher rebuilds (any miss fails an assertion)."""
    found = 0
    # `_path`: train.json, else "<datatype>_<split>.json"
    splits = ("random_split", "topic_split")
    names = ["train.json"] + [f"{datatype}_{split}.json" for datatype in ("valid", "test") for split in splits]
    for name in names:
        with open(files_dir / name) as f:
            data = json.load(f)
        for d in data:
            found += _read_episode(d)
    return found


def _read_episode(d: dict[str, Any]) -> int:
    dialog = d["dialog"]
    # WizardOfWikipediaTeacher.get
    for entry in dialog:
        _ = (d["wizard_eval"], d["chosen_topic"], d["chosen_topic_passage"], d["persona"])
        _ = (entry["text"], entry["retrieved_topics"], entry["retrieved_passages"])
        _ = (entry.get("checked_sentence", None), entry.get("checked_passage", None))
    # BasicdialogTeacher (speaker_label both): consecutive pairs
    for e in range(len(dialog) // 2):
        assert isinstance(dialog[2 * e]["text"], str) and isinstance(dialog[2 * e + 1]["text"], str)
    # WizardDialogKnowledgeTeacher, every wizard turn (add_missing_turns=all)
    wizard_first = "Wizard" in dialog[0]["speaker"]
    episodes = (len(dialog) - 1) // 2 + 1 if wizard_first else len(dialog) // 2
    found = 0
    for e in range(episodes):
        idx = 2 * e if wizard_first else 2 * e + 1
        knowledge = {d.get("chosen_topic", ""): d["chosen_topic_passage"]}
        around = []
        if not wizard_first or idx != 0:
            around.append(dialog[idx - 1]["retrieved_passages"])
        if idx - 2 >= 0:
            around.append(dialog[idx - 2]["retrieved_passages"])
        for passages in around:
            for passage in passages:
                for title, sentences in passage.items():
                    knowledge.setdefault(title, sentences)
        wizard = dialog[idx]
        assert "wizard" in wizard["speaker"].lower(), wizard["speaker"]
        title, sentence = _checked_title_and_sentence(wizard, knowledge)
        if sentence != NO:
            assert title == _first_value(wizard["checked_passage"]), (title, wizard)
            found += 1
    # DocreaderTeacher: entries with a real checked sentence, and the passage it came from
    for idx, entry in enumerate(dialog):
        checked = entry.get("checked_sentence")
        if checked is None or checked == {} or NO in checked:
            continue
        key, sentence = _first_key(checked), _first_value(checked)
        if "chosen" in key:
            passage = " ".join(d["chosen_topic_passage"])
        else:
            source = dialog[idx - 2] if "self" in key else dialog[idx - 1]
            title = _first_value(entry["checked_passage"])
            passage = next(" ".join(p[title]) for p in source["retrieved_passages"] if title in p)
        assert sentence in passage
    return found


@pytest.mark.django_db
def test_it_can_be_read_by_the_parlai_wizard_of_wikipedia_teachers(tmp_path: Path, wow_campaign: Campaign) -> None:
    for t in range(12):
        wow_room(wow_campaign, topic=f"Topic {t}", first_speaker="wizard", messages=9, marker=f"w{t}")
        wow_room(wow_campaign, topic=f"Topic {t}", first_speaker="apprentice", messages=10, marker=f"a{t}")
    call_command("export_dataset", "wow", "--out", str(tmp_path), "--seed", "11", stdout=io.StringIO())

    found = _parlai_read(tmp_path)

    # Per room: wizard-first 9 turns = 5 wizard turns, 4 with knowledge; apprentice-first 10 = 5, 4.
    assert found == 24 * 4
