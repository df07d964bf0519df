"""`import_dataset personas FILE --campaign SLUG`: WoW personas for a campaign, one JSON object a
line: {"text": "i play the guitar in a small band.", "topics": ["Guitar", "Blues", "Jazz"]}.

Every topic must be an article title of the campaign's knowledge source; a file with any bad line
is refused whole, naming each line at fault, and nothing is stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from collect.models import Campaign, Persona
from collect.personas import topics_missing, topics_problems
from retrieval.importers.records import BadRecord, json_object

TEXT_MAX = Persona._meta.get_field("text").max_length
MAX_REPORTED = 20


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    slug = options.get("campaign") or ""
    if not slug:
        raise ValueError("personas need a campaign: --campaign SLUG")
    campaign = Campaign.objects.select_related("knowledge_source").filter(slug=slug).first()
    if campaign is None:
        raise ValueError(f"no campaign {slug!r}")
    try:
        raw_lines = path.read_bytes().splitlines()
    except OSError as error:
        raise ValueError(f"{path}: {error.strerror or error}") from error

    personas: list[tuple[str, str, list[str]]] = []  # (where, text, topics)
    problems: list[str] = []
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        where = f"line {number}"
        obj = json_object(where, raw)
        if isinstance(obj, BadRecord):
            problems.append(str(obj))
            continue
        text, topics = obj.get("text"), obj.get("topics")
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{where}: 'text' must be a non-empty string")
            continue
        if len(text.strip()) > TEXT_MAX:
            problems.append(f"{where}: 'text' is longer than {TEXT_MAX} characters")
            continue
        shape = topics_problems(topics)
        if shape:
            problems.extend(f"{where}: {p}" for p in shape)
            continue
        personas.append((where, text.strip(), topics))

    all_topics = {t for _, _, topics in personas for t in topics}
    missing = set(topics_missing(source_id=campaign.knowledge_source_id, topics=sorted(all_topics)))
    for where, _, topics in personas:
        absent = [t for t in topics if t in missing]
        if absent:
            names = ", ".join(repr(t) for t in absent)
            problems.append(f"{where}: no article titled {names} in the knowledge source {campaign.knowledge_source.slug!r}")
    if problems:
        shown = problems[:MAX_REPORTED]
        more = f"\n… and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
        raise ValueError(f"{path}: nothing imported:\n" + "\n".join(shown) + more)
    if not personas:
        raise ValueError(f"{path}: no personas in the file")
    with transaction.atomic():
        Persona.objects.bulk_create(Persona(campaign=campaign, text=text, topics=topics) for _, text, topics in personas)
    return {"campaign": campaign.slug, "personas": len(personas), "topics": len(all_topics)}
