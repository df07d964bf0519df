"""Text holding a lone UTF-16 surrogate (a JSON escape such as "\\ud83d" without its pair) is refused
where it comes in, naming the record and field, and nothing is stored: stored, it made every later
`next` for the item a 500 (issue 47). The check itself is tested in tests/test_surrogates.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Assignment, AssignmentStatus, Item, Job
from tests.annotate.conftest import Api
from tests.annotate.pairwise_data import conversations, write

pytestmark = pytest.mark.django_db

BROKEN = "I love green tea \ud83d so much"  # the high half of an emoji, alone
CASE_FILE = Path("/work/shared/cases/pairwise_lone_surrogate.json")


def import_dataset(kind: str, path: Path, *args: str) -> None:
    call_command("import_dataset", kind, str(path), *args, stdout=open("/dev/null", "w"))


def test_a_pairwise_file_with_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    data = conversations(2)
    data[3]["dialog"][1]["text"] = BROKEN
    with pytest.raises(CommandError, match=r"record 3, dialog\[1\]\.text holds a lone surrogate \(U\+D83D\)"):
        import_dataset("pairwise", write(tmp_path / "pairs.json", data), "--job", "j", "--question", "engaging")
    assert not Job.objects.exists() and not Item.objects.exists()


def test_the_reported_case_file_is_refused(tmp_path: Path) -> None:
    if not CASE_FILE.is_file():
        pytest.skip(f"{CASE_FILE} is not here")
    path = shutil.copy(CASE_FILE, tmp_path / CASE_FILE.name)
    with pytest.raises(CommandError, match=r"record 0, dialog\[1\]\.text holds a lone surrogate"):
        import_dataset("pairwise", Path(path), "--job", "j", "--question", "engaging")
    assert not Job.objects.exists() and not Item.objects.exists()


def test_a_curiosity_acts_file_with_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    messages = [{"sender": "user", "message": "Tell me about Uruguay."}, {"sender": "assistant", "message": BROKEN}]
    data = {"dialogs": [{"dialog_id": 7, "focus_entity": "Uruguay", "aspects": [], "messages": messages}]}
    path = tmp_path / "curiosity_dialogs.val.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CommandError, match=r"dialogs\[0\]\.messages\[1\]\.message holds a lone surrogate"):
        import_dataset("curiosity-acts", path, "--job", "acts")
    assert not Job.objects.exists() and not Item.objects.exists()


def test_a_pairwise_reason_with_a_lone_surrogate_is_refused(tmp_path: Path, api: dict[str, Api]) -> None:
    import_dataset("pairwise", write(tmp_path / "pairs.json", conversations(1)), "--job", "acute", "--question", "engaging")
    item_id = api["alice"].next(Job.objects.get(slug="acute")).json()["item"]["id"]
    response = api["alice"].answer(item_id, {"choice": "left", "reason": f"Because {BROKEN}."})
    assert response.status_code == 400, response.content
    assert response.json()["detail"] == "reason holds a lone surrogate (U+D83D), which is not valid Unicode text"
    assert not Assignment.objects.filter(item_id=item_id, status=AssignmentStatus.SUBMITTED).exists()
    assert Item.objects.get(pk=item_id).answers_count == 0
