"""`create_annotation_job` gives a job a completion code unless told not to: crowd platforms pay
on it, and a job without one leaves annotators with nothing to paste."""

from __future__ import annotations

import re

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Job
from tests.annotate.test_collected import wow_room
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db


def test_a_new_job_gets_a_completion_code_by_default(capsys) -> None:
    wow_room(make_campaign(slug="wow-code"))
    call_command("create_annotation_job", "acts-code", "--kind", "dialog_acts", "--campaign", "wow-code")
    code = Job.objects.get(slug="acts-code").completion_code
    assert re.fullmatch(r"[0-9A-F]{8}", code)
    assert f"completion code {code}" in capsys.readouterr().out
    call_command("create_annotation_job", "acts-other", "--kind", "dialog_acts", "--campaign", "wow-code")
    assert Job.objects.get(slug="acts-other").completion_code != code


def test_a_given_code_or_none(capsys) -> None:
    wow_room(make_campaign(slug="wow-given"))
    call_command("create_annotation_job", "acts-given", "--kind", "dialog_acts", "--campaign", "wow-given",
                 "--completion-code", "GW-LABELS")
    assert Job.objects.get(slug="acts-given").completion_code == "GW-LABELS"
    call_command("create_annotation_job", "acts-none", "--kind", "dialog_acts", "--campaign", "wow-given",
                 "--no-completion-code")
    assert Job.objects.get(slug="acts-none").completion_code == ""
    assert "no completion code" in capsys.readouterr().out
    with pytest.raises(CommandError, match="not both"):
        call_command("create_annotation_job", "acts-both", "--kind", "dialog_acts", "--campaign", "wow-given",
                     "--completion-code", "X", "--no-completion-code")
    assert not Job.objects.filter(slug="acts-both").exists()
