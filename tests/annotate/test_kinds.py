"""The annotation kinds register themselves (annotate.registry) and the core asks them: every part a
kind names exists, a name is registered once, Job.kind's choices are the registered kinds, and a
kind's own command options are its own."""

from __future__ import annotations

import io
from dataclasses import fields, replace

import pytest
from django.core.management import CommandError, call_command

from annotate import registry
from annotate.models import Job
from annotate.services import AnnotationError
from annotate.services.jobs import job_create, job_study_set
from tests.annotate.test_collected import wow_room
from tests.factories import make_campaign

BUILT_IN = {"relevance": 10, "dialog_acts": 2, "duconv_eval": 3, "pairwise": 3, "faithdial": 2}


def test_the_built_in_kinds_are_registered_with_their_default_overlap() -> None:
    assert {kind.name: kind.overlap for kind in registry.annotation_kinds()} == BUILT_IN
    assert dict(Job._meta.get_field("kind").choices) == dict(registry.kind_choices())


@pytest.mark.parametrize("kind", registry.annotation_kinds(), ids=lambda kind: kind.name)
def test_every_part_a_kind_names_exists(kind: registry.AnnotationKind) -> None:
    dotted = [f.name for f in fields(kind) if f.name not in ("name", "label", "overlap", "screen", "script", "report_template", "questions")]
    for attribute in dotted:
        if getattr(kind, attribute):
            assert kind.part(attribute) is not None, attribute


def test_a_kind_registered_twice_is_refused() -> None:
    kind = registry.annotation_kind("relevance")
    with pytest.raises(ValueError, match="registered twice"):
        registry.kind_register(replace(kind, label="another"))
    with pytest.raises(ValueError, match="unknown annotation kind 'nope'; known: dialog_acts, duconv_eval, faithdial, pairwise, relevance"):
        registry.annotation_kind("nope")


@pytest.mark.django_db
def test_a_job_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(AnnotationError, match="kind must be one of dialog_acts, duconv_eval, faithdial, pairwise, relevance, not 'nope'"):
        job_create(slug="x", name="x", kind="nope")
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_a_kind_s_option_is_refused_for_a_job_of_another_kind() -> None:
    wow_room(make_campaign(slug="wow-opts"))
    for args, flag, owner in (
        (["--kind", "relevance", "--control-pairs", "2"], "--control-pairs", "pairwise"),
        (["--kind", "pairwise", "--threshold", "0.5"], "--threshold", "relevance"),
        (["--kind", "dialog_acts", "--question", "engaging"], "--question", "pairwise"),
    ):
        with pytest.raises(CommandError, match=f"{flag} takes --kind {owner}"):
            call_command("create_annotation_job", "opts", "--campaign", "wow-opts", *args, stdout=io.StringIO())
    assert not Job.objects.exists()
    call_command("create_annotation_job", "opts", "--campaign", "wow-opts", "--kind", "relevance", "--threshold", "0.5",
                 "--max-candidates", "4", stdout=io.StringIO())
    job = Job.objects.get(slug="opts")
    assert (job.threshold, job.candidates["max_candidates"], job.question) == (0.5, 4, "")


@pytest.mark.django_db
def test_only_a_kind_that_draws_its_items_takes_a_study() -> None:
    assert registry.study_kinds() == ["pairwise"]
    with pytest.raises(AnnotationError, match="only pairwise jobs take active_sampling, max_judgments"):
        job_create(slug="r", name="r", kind="relevance", active_sampling=True, max_judgments=10)
    assert not Job.objects.exists()
    acts = job_create(slug="a", name="a", kind="dialog_acts")
    with pytest.raises(AnnotationError, match="only pairwise jobs take stop_when_separated"):
        job_study_set(job=acts, stop_when_separated=True)
    acts.refresh_from_db()
    assert not acts.stop_when_separated
    pairwise = job_create(slug="p", name="p", kind="pairwise", max_judgments=10)
    with pytest.raises(AnnotationError, match="unknown study setting"):
        job_study_set(job=pairwise, overlap=2)
    job_study_set(job=pairwise, active_sampling=True)
    pairwise.refresh_from_db()
    assert (pairwise.active_sampling, pairwise.max_judgments) == (True, 10)
