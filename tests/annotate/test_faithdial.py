"""FaithDial jobs through the annotation API and services: what the annotator sees, the answers it
takes and refuses (bad labels, a missing or unchanged rewrite of an unfaithful response, a rewrite
that is no valid message), items from collected WoW rooms, the report (BEGIN agreement with
annotate.agreement, the rewrites' word diffs) and `simulate faithdial`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from annotate.kinds.faithdial.diff import word_diff
from annotate.models import Assignment, AssignmentStatus, Item, Job
from annotate.selectors.report import annotation_report
from annotate.services import AnnotationError
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from annotate.services.jobs import ItemSpec, items_add, job_create
from collect import registry as collect_registry
from collect.models import RoomStatus, Worker
from tests.annotate.conftest import Api, People
from tests.factories import TOPIC, TOPIC_PASSAGE, add_message, make_campaign, make_room

pytestmark = pytest.mark.django_db

KNOWLEDGE = "Blues is a music genre that originated in the Deep South of the United States around the 1860s."
RESPONSE = "Blues was invented in Chicago in 1950 by Muddy Waters."
REWRITE = "I don't know who invented it, but the blues originated in the Deep South around the 1860s."


def faithdial_job(items: int = 2, **settings) -> Job:
    job = job_create(slug="fd", name="FaithDial", kind="faithdial", **settings)
    payload = {"topic": "Blues", "history": ["Do you like the blues?"], "speaker": "Wizard",
               "knowledge": KNOWLEDGE, "response": RESPONSE, "dialog": 0}
    items_add(job=job, specs=[ItemSpec(key=f"0:{n}", payload={**payload, "turn": n}) for n in range(items)])
    return job


def test_the_annotator_gets_the_history_the_knowledge_and_the_response(api: dict[str, Api]) -> None:
    job = faithdial_job()
    body = api["alice"].next(job).json()
    item = body["item"]
    assert item["kind"] == "faithdial" and item["history"] == ["Do you like the blues?"]
    assert item["knowledge"] == KNOWLEDGE and item["response"] == RESPONSE
    assert "Hallucination" in item["begin"] and "Question" in item["vrm"]
    answer = api["alice"].answer(item["id"], {"begin": ["Hallucination", "Entailment"], "vrm": ["Edification"], "response": f"  {REWRITE} "})
    assert answer.status_code == 201, answer.json()
    stored = Assignment.objects.get(status=AssignmentStatus.SUBMITTED).answer
    # Stored in the taxonomy's order, the rewrite stripped: both versions kept (the item has the original).
    assert stored == {"begin": ["Entailment", "Hallucination"], "vrm": ["Edification"], "response": REWRITE}


@pytest.mark.parametrize(
    ("body", "code", "detail"),
    [
        ({"begin": ["Halucination"], "vrm": ["Edification"]}, "unknown_label", "`begin`: unknown label 'Halucination'"),
        ({"begin": ["Entailment"], "vrm": ["Chit-chat"]}, "unknown_label", "`vrm`: unknown label 'Chit-chat'"),
        ({"begin": [], "vrm": ["Edification"]}, "bad_answer", "`begin` must be a list of at least one label"),
        ({"begin": ["Entailment", "Entailment"], "vrm": ["Edification"]}, "bad_answer", "each label may be given once"),
        ({"begin": ["Hallucination"], "vrm": ["Edification"], "response": "  "}, "rewrite_required", "labeled Hallucination: rewrite it"),
        ({"begin": ["Uncooperative"], "vrm": ["Edification"]}, "rewrite_required", "labeled Uncooperative: rewrite it"),
        ({"begin": ["Partial Hallucination"], "vrm": ["Edification"], "response": RESPONSE}, "rewrite_required", "the rewrite is the response unchanged"),
        ({"begin": ["Hallucination"], "vrm": ["Edification"], "response": "I don't \x1b[31mknow"}, "bad_rewrite", "must not contain control characters"),
        ({"begin": ["Hallucination"], "vrm": ["Edification"], "response": "x" * 1001}, "bad_rewrite", "longer than 1000 characters"),
        ({"begin": ["Hallucination"], "vrm": ["Edification"], "response": "\u200b\u200b"}, "bad_rewrite", "must contain visible characters"),
        ({"begin": ["Entailment"], "vrm": ["Edification"], "selected": [1]}, "bad_answer", "a FaithDial answer has `begin`"),
    ],
)
def test_bad_answers_are_refused_with_a_clear_error(api: dict[str, Api], body: dict, code: str, detail: str) -> None:
    job = faithdial_job(items=1)
    item = api["alice"].next(job).json()["item"]
    answer = api["alice"].answer(item["id"], body)
    assert answer.status_code == 400 and answer.json()["code"] == code
    assert detail in answer.json()["detail"]
    assert not Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).exists()


def test_a_lone_surrogate_in_the_rewrite_is_refused(api: dict[str, Api], people: People) -> None:
    job = faithdial_job(items=1)
    item = api["alice"].next(job).json()["item"]
    raw = '{"begin": ["Hallucination"], "vrm": ["Edification"], "response": "I don\'t know \\ud83d"}'
    answer = Client().post(f"/api/annotate/items/{item['id']}/answers/", raw, content_type="application/json", **api["alice"].auth)
    assert answer.status_code == 400 and "surrogate" in json.dumps(answer.json())
    # The service refuses it too (a simulation or another caller goes around the API's parser).
    with pytest.raises(AnnotationError, match="lone surrogate"):
        answer_submit(item_id=item["id"], worker=people.alice, begin=["Hallucination"], vrm=["Edification"], response="I don't know \ud83d")
    assert not Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).exists()


def test_a_faithful_response_may_be_kept_or_lightly_fixed(people: People) -> None:
    job = faithdial_job()
    for worker, response in ((people.alice, ""), (people.alice, RESPONSE.replace("1950", "1950 ."))):
        item = assignment_next(job=job, worker=worker).assignment.item
        answer_submit(item_id=item.pk, worker=worker, begin=["Entailment"], vrm=["Edification"], response=response)
    answers = [a.answer["response"] for a in Assignment.objects.order_by("pk")]
    assert answers == ["", "Blues was invented in Chicago in 1950 . by Muddy Waters."]


def test_the_report_gives_begin_agreement_and_the_rewrites_word_diffs(people: People) -> None:
    job = faithdial_job(items=2, overlap=2)
    for worker, labels in ((people.alice, (["Hallucination"], ["Entailment"])), (people.bob, (["Hallucination"], ["Hallucination"]))):
        for begin in labels:
            item = assignment_next(job=job, worker=worker).assignment.item
            rewrite = REWRITE if begin != ["Entailment"] else ""
            answer_submit(item_id=item.pk, worker=worker, begin=begin, vrm=["Edification"], response=rewrite)
    report = annotation_report(job=job)
    assert report["agreement"]["measure"] == "krippendorff_alpha"
    # Units (item, label): the annotators differ on item 2's Entailment and Hallucination only.
    assert report["agreement"]["units"] == 10
    # 20 values, 4 yes; 2 units disagree: D_o = 4/20, D_e = 2·4·16/(20·19), alpha = 1 − D_o/D_e.
    assert report["agreement"]["value"] == pytest.approx(1 - (4 / 20) / (2 * 4 * 16 / (20 * 19)))
    faithful, vrm = report["agreements"][1:]
    assert faithful["unit"].startswith("a response") and faithful["units"] == 2
    # Both gave Edification and nothing else to both responses: full agreement.
    assert vrm["unit"].startswith("a (response, VRM label)") and vrm["units"] == 12 and vrm["value"] == 1.0
    assert report["faithdial"]["responses"] == 2 and report["faithdial"]["rewritten"] == 2
    rows = report["faithdial"]["rewrites"]
    assert len(rows) == 3 and rows[0]["original"] == RESPONSE and rows[0]["rewrite"] == REWRITE
    assert {"op": "delete", "text": "Chicago in 1950 by Muddy Waters."} in rows[0]["diff"]
    assert {"op": "insert", "text": "I don't know who"} in rows[0]["diff"]
    out = io.StringIO()
    call_command("annotation_report", job.slug, stdout=out)
    assert "labels      2 responses, 2 unfaithful, 2 rewritten" in out.getvalue()


def test_the_report_page_shows_reviewers_the_diff(admin_client: Client, people: People) -> None:
    job = faithdial_job(items=1, overlap=1)
    item = assignment_next(job=job, worker=people.alice).assignment.item
    answer_submit(item_id=item.pk, worker=people.alice, begin=["Hallucination"], vrm=["Edification"], response=REWRITE)
    page = admin_client.get(f"/annotate/jobs/{job.slug}/report/").content.decode()
    assert 'data-testid="rewrite-diff"' in page and 'data-testid="faithdial-agreements"' in page
    assert "<del>" in page and "<ins>" in page and "Deep South" in page


def test_word_diff() -> None:
    assert word_diff("the cat sat", "the dog sat down") == [
        ("equal", "the"), ("delete", "cat"), ("insert", "dog"), ("equal", "sat"), ("insert", "down"),
    ]
    assert word_diff("same  words", "same words") == [("equal", "same words")]


def wow_room(campaign, n: int = 0):
    room = make_room(campaign, first_speaker="apprentice", status=RoomStatus.COMPLETE)
    add_message(room, "apprentice", f"What is science fiction about? ({n})")
    add_message(room, "wizard", "It is speculative fiction, and I love it.",
                checked_sentence={"chosen_Science_fiction_0": TOPIC_PASSAGE[0]}, checked_passage={"chosen_topic_0_Science_fiction": TOPIC})
    add_message(room, "apprentice", "Does it include time travel?")
    add_message(room, "wizard", "Yes, often.", checked_sentence={"no_passages_used": "no_passages_used"},
                checked_passage={"no_passages_used": "no_passages_used"})
    return room


def test_items_come_from_collected_wow_rooms_grounded_wizard_turns(tmp_path: Path) -> None:
    campaign = make_campaign(slug="wow-fd")
    room = wow_room(campaign)
    call_command("create_annotation_job", "fd-wow", "--kind", "faithdial", "--campaign", "wow-fd")
    items = list(Item.objects.filter(job__slug="fd-wow"))
    # The turn with "no sentence used" has no knowledge to be faithful to.
    assert len(items) == 1 and items[0].room_id == room.id
    assert items[0].payload["history"] == ["What is science fiction about? (0)"]
    assert items[0].payload["knowledge"] == TOPIC_PASSAGE[0]
    assert items[0].payload["response"] == "It is speculative fiction, and I love it."


def test_simulate_runs_scripted_annotators_and_the_job_exports(tmp_path: Path, capsys) -> None:
    campaign = make_campaign(slug="wow-sim")
    for n in range(3):
        wow_room(campaign, n)
    call_command("simulate", "faithdial", "--dialogues", "2", "--campaign", "wow-sim")
    out = capsys.readouterr().out
    assert "simulated 4 FaithDial answers by 2 annotators on 2 responses of 2 dialogues in job faithdial-simulation" in out
    job = Job.objects.get(slug="faithdial-simulation")
    assert Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED).count() == 4
    call_command("export_dataset", "faithdial", "--job", job.slug, "--out", str(tmp_path))
    dialogues = json.loads((tmp_path / "faithdial-simulation_faithdial.json").read_text(encoding="utf-8"))
    assert len(dialogues) == 2
    utterance = dialogues[0]["utterances"][0]
    assert list(utterance) == ["history", "speaker", "knowledge", "original_response", "response", "BEGIN", "VRM"]
    assert utterance["BEGIN"] and utterance["VRM"]


def test_a_simulation_is_registered_once() -> None:
    assert collect_registry.simulations()["faithdial"].runner().__name__ == "run"
    with pytest.raises(ValueError, match="simulation 'faithdial': the name is a registered simulation"):
        collect_registry.simulation_register(collect_registry.Simulation(name="faithdial", label="again", run="x.y"))
    with pytest.raises(ValueError, match="simulation 'wow': the name is a registered simulation or task type"):  # a task type's name
        collect_registry.simulation_register(collect_registry.Simulation(name="wow", label="again", run="x.y"))


def test_simulate_says_what_it_lacks() -> None:
    with pytest.raises(CommandError, match="no complete Wizard of Wikipedia dialogues"):
        call_command("simulate", "faithdial", "--dialogues", "1")
    assert not Worker.objects.filter(platform="simulation").exists()
