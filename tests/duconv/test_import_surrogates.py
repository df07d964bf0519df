"""A DuConv file whose text holds a lone UTF-16 surrogate is refused naming the line and field,
and nothing is stored (issue 47)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.models import Campaign, Message, Room
from collect.tasktypes.duconv.models import DuConvSession
from retrieval.models import KnowledgeSource
from tests.duconv.test_import_split import sessions

pytestmark = pytest.mark.django_db


def test_a_session_with_a_lone_surrogate_is_refused_by_line_and_field(tmp_path: Path) -> None:
    lines = sessions(3)
    lines[1]["conversation"][2] = "主演 是 吴京 \ud83d 。"
    path = tmp_path / "dev.txt"
    # json.dumps writes the lone surrogate as its escape, as the broken files have it.
    path.write_text("".join(json.dumps(s) + "\n" for s in lines), encoding="utf-8")
    with pytest.raises(CommandError, match=r"^line 2: conversation\[2\] holds a lone surrogate \(U\+D83D\)"):
        call_command("import_dataset", "duconv", str(path))
    assert not Campaign.objects.exists() and not KnowledgeSource.objects.exists()
    assert not Room.objects.exists() and not DuConvSession.objects.exists() and not Message.objects.exists()
