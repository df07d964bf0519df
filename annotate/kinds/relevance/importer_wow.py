"""Wizard of Wikipedia dialogues (docs/schemas.md#wizard-of-wikipedia) -> relevance items to be
labeled: one per wizard turn that answers an apprentice turn, with the knowledge WoW showed the
wizard for it (topic passage, passages retrieved for the partner's and the wizard's own previous
turn), as WOW++ did."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, Iterator

from django.db import transaction

from annotate.importers import ImportFailure, is_str_list, read_json, require, role_of, target_job
from annotate.kinds.relevance import NAME
from annotate.kinds.relevance.candidates import ITEM_NAMESPACE, NO_PASSAGES_USED, relevance_payload
from annotate.models import ItemRole
from annotate.services.jobs import ItemSpec, items_add


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise ImportFailure("a Wizard of Wikipedia file is a JSON list of dialogues")
    if role_of(options) != ItemRole.TASK:
        raise ImportFailure("WoW dialogues carry no relevance labels: import them as task items")
    with transaction.atomic():
        job = target_job(path, options, kind=NAME, create_fresh=False, source={"dataset": "wow", "file": path.name})
        specs = [spec for n, dialogue in enumerate(data) for spec in dialogue_specs(n, dialogue, job.candidates)]
        added = items_add(job=job, specs=specs)
    return {"job": job.slug, "role": ItemRole.TASK, "items": added, "skipped": len(specs) - added}


def dialogue_specs(n: int, dialogue: Any, options: dict[str, Any]) -> Iterator[ItemSpec]:
    where = f"dialogue {n}"
    require(isinstance(dialogue, dict) and isinstance(dialogue.get("dialog"), list), where, "needs a dialog list")
    topic = dialogue.get("chosen_topic")
    require(isinstance(topic, str), where, "chosen_topic must be a string")
    require(is_str_list(dialogue.get("chosen_topic_passage") or []), where, "chosen_topic_passage must be a list of strings")
    turns = dialogue["dialog"]
    for i, turn in enumerate(turns):
        require(isinstance(turn, dict) and isinstance(turn.get("text"), str), f"{where}, turn {i}", "needs text")
    speaker = str(turns[0].get("speaker", "")) if turns else ""
    start = "Human" if "Apprentice" in speaker else "Assistant"
    for i, turn in enumerate(turns):
        if "Wizard" not in str(turn.get("speaker")) or i == 0 or "Apprentice" not in str(turns[i - 1].get("speaker")):
            continue
        shown = [{"source": "chosen", "passage": 0, "title": topic, "sentences": dialogue.get("chosen_topic_passage") or []}]
        for source, back in (("partner", 1), ("self", 2)):
            if i - back >= 0:
                for index, passage in enumerate(turns[i - back].get("retrieved_passages") or []):
                    require(
                        isinstance(passage, dict) and len(passage) == 1 and is_str_list(next(iter(passage.values()))),
                        f"{where}, turn {i - back}",
                        f"retrieved_passages[{index}] must be a one-key object {{title: [sentences]}}",
                    )
                    (title, sentences), = passage.items()
                    shown.append({"source": source, "passage": index, "title": title, "sentences": sentences})
        for field in ("checked_sentence", "checked_passage"):
            # {} on a few wizard turns of the original release: no gold for that turn.
            value = turn.get(field) or {}
            require(isinstance(value, dict) and all(isinstance(v, str) for v in value.values()),
                    f"{where}, turn {i}", f"{field} must be an object {{key: text}}")
        article = next(iter((turn.get("checked_passage") or {}).values()), None)
        context = [t["text"] for t in turns[:i]]
        payload = relevance_payload(
            topic=topic,
            turns=context,
            start_speaker=start,
            shown=shown,
            gold_sentence=turn.get("checked_sentence"),
            gold_article=None if article == NO_PASSAGES_USED else article,
            options=options,
        )
        key = str(uuid.uuid5(ITEM_NAMESPACE, json.dumps([topic, context])))
        yield ItemSpec(key=key, payload={"id": key, **payload})
