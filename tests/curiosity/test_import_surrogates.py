"""A Curiosity file whose text holds a lone UTF-16 surrogate is refused naming the dialog, message
and field, and nothing is stored (issue 47)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collect.models import Campaign, Message, Room
from collect.tasktypes.curiosity.models import CuriosityDialog
from retrieval.models import KnowledgeSource
from tests.curiosity.dialogs import dialog, write_dialogs

pytestmark = pytest.mark.django_db


def test_a_dialog_with_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    dialogs = [dialog(11, "Namibia", list(range(1, 11))), dialog(12, "Tahiti", list(range(11, 21)))]
    dialogs[1]["messages"][3]["message"] = "Black pearls \udc9a are farmed there."
    path = write_dialogs(tmp_path / "curiosity_dialogs.train.json", dialogs, "0" * 32)
    with pytest.raises(CommandError, match=r"dialogs\[1\]\.messages\[3\]\.message holds a lone surrogate \(U\+DC9A\)"):
        call_command("import_dataset", "curiosity", str(path), stdout=open("/dev/null", "w"))
    assert not Campaign.objects.exists() and not KnowledgeSource.objects.exists()
    assert not Room.objects.exists() and not CuriosityDialog.objects.exists() and not Message.objects.exists()
