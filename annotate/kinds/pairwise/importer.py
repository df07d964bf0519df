"""Conversations with a model name each -> a pairwise (ACUTE-Eval) job, standalone.

`--role task`: the file is a JSON list of conversations ({"id", "model", "dialog": [{"speaker",
"text"}], "speaker"? (the judged speaker, default "model"), "topic"?, "seen"?}); one item is made
for each pair of conversations of two different models (annotate.kinds.pairwise.pairs).
`--role gold` / `--role qualification`: a JSON list of known-answer pairs {"a": conversation,
"b": conversation, "winner": "a"|"b"}: checks mixed into the work, or the onboarding set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from annotate.importers import ImportFailure, read_json, role_of, target_job
from annotate.kinds.pairwise import NAME
from annotate.models import ItemRole
from annotate.services import AnnotationError
from annotate.services.jobs import items_add
from annotate.kinds.pairwise.pairs import check_spec, conversation_clean, pair_specs


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    data = read_json(path)
    role = role_of(options)
    if not isinstance(data, list) or not data:
        what = "conversations" if role == ItemRole.TASK else "check pairs"
        raise ImportFailure(f"a pairwise file is a non-empty JSON list of {what}")
    try:
        with transaction.atomic():
            settings = {"question": options.get("question") or "", "source": {"file": path.name}}
            job = target_job(path, options, kind=NAME, create_fresh=False, **settings)
            if role == ItemRole.TASK:
                conversations = [conversation_clean(raw, f"conversation {n}") for n, raw in enumerate(data)]
                specs = pair_specs(job, conversations)
            else:
                specs = [check_spec(job, raw, f"pair {n}", role) for n, raw in enumerate(data)]
            added = items_add(job=job, specs=specs)
    except AnnotationError as error:
        raise ImportFailure(error.message) from error
    return {"job": job.slug, "role": role, "items": added, "skipped": len(specs) - added}
