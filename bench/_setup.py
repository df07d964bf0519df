"""Shared start-up for the benchmarks: a throwaway embedded database and the demo knowledge,
unless DATABASE_URL / GROUNDWORK_VAR_DIR already point somewhere."""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any


def django_bare() -> None:
    """Django's settings and apps, for a bench that needs no database."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-bench-"))
    import django

    django.setup()


def django_with_demo() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-bench-"))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("load_demo", verbosity=0)


def django_with_demo_knowledge() -> None:
    """django_with_demo, without loading the demo again (minutes) when the configured database
    already has the demo knowledge, its index and the demo WoW campaign."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-bench-"))
    import django
    from django.conf import settings
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from collect.tasktypes.wow.demo import DEMO_SLUG
    from collect.models import Campaign
    from retrieval.models import KnowledgeSource

    source = KnowledgeSource.objects.filter(slug="wiki-demo").first()
    ready = (source is not None and source.articles.exists() and (settings.INDEX_DIR / source.slug / "meta.json").exists()
             and Campaign.objects.filter(slug=DEMO_SLUG).exists())
    if not ready:
        call_command("load_demo", verbosity=0)


def wow_room(campaign: Any, *, first_speaker: str = "wizard", persona: Any = None, **fields: Any) -> tuple[Any, dict[str, Any]]:
    """A WoW room of `campaign` (`persona`, default its first; the wizard speaking first unless
    `first_speaker` says otherwise) with two fresh workers; (the room, {role: assignment}).
    `fields` set more of the room (status, topic)."""
    from collect.models import Assignment, AssignmentStatus, Room, Worker
    from collect.tasktypes.wow import protocol as wow

    room = Room.objects.create(campaign=campaign, first_speaker=first_speaker, turns_required=1,
                               persona=persona or campaign.personas.first(), **fields)
    seats = {}
    for role in (wow.WIZARD, wow.APPRENTICE):
        worker = Worker.objects.create(platform="inhouse", external_id=f"bench-{uuid.uuid4().hex[:12]}")
        seats[role] = Assignment.objects.create(campaign=campaign, worker=worker, status=AssignmentStatus.PAIRED,
                                                room=room, role=role)
    return room, seats
