"""ParlAI's 100-candidate retrieval evaluation on a Wizard of Wikipedia test split exported by
Groundwork (docs/datasets.md): rooms are built from the dialogue turns of a WOW++ file, exported with
`export_dataset wow` (every dialogue in the random test split), and ParlAI's `eval_model` runs a
baseline on them through `WizardDialogKnowledgeTeacher --label-type response`, in the interpreter
GROUNDWORK_PARLAI_PYTHON names (a separate environment with ParlAI; ParlAI is not a dependency of
Groundwork). Prints ParlAI's report and its hits@1.

    GROUNDWORK_PARLAI_PYTHON=/path/to/parlai-venv/bin/python \\
        .venv/bin/python bench/parlai_eval.py --wowpp ../shared/data/wowpp/test_random_augmented_wow.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TEACHER = "wizard_of_wikipedia:WizardDialogKnowledge:random_split"


def django_setup() -> None:
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-parlai-"))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def dialogues_of(wowpp: Path, limit: int) -> list[tuple[str, list[tuple[str, str]]]]:
    """(topic, [(role, text)]) per dialogue of a WOW++ file: its contexts that are not the start of
    a longer one (a dialogue gives several contexts, each one turn pair longer), in file order.
    Without `start_speaker` the last turn is the apprentice's (a context ends before the wizard's reply)."""
    records = list(json.loads(wowpp.read_text(encoding="utf-8")).values())
    starts = {tuple(r["turns"][:n]) for r in records for n in range(1, len(r["turns"]))}
    seen, out = set(), []
    for record in records:
        turns = record["turns"]
        if tuple(turns) in seen or tuple(turns) in starts:
            continue
        seen.add(tuple(turns))
        start = record.get("start_speaker")
        first = {"Human": "apprentice", "Assistant": "wizard"}.get(start) or ("apprentice" if len(turns) % 2 else "wizard")
        other = "wizard" if first == "apprentice" else "apprentice"
        out.append((record["topic"], [(first if n % 2 == 0 else other, text) for n, text in enumerate(turns)]))
        if len(out) == limit:
            break
    return out


def rooms_build(dialogues: list[tuple[str, list[tuple[str, str]]]]) -> int:
    from collect.models import (Assignment, AssignmentStatus, Campaign, Message, Outcome, Room,
                                RoomStatus, Worker)
    from collect.tasktypes.wow import NAME as WOW_NAME
    from retrieval.models import KnowledgeSource

    source = KnowledgeSource.objects.create(slug="parlai-eval", name="ParlAI evaluation")
    campaign = Campaign.objects.create(slug="parlai-eval", name="ParlAI evaluation", protocol=WOW_NAME,
                                       knowledge_source=source, is_active=False)
    workers = {role: Worker.objects.create(platform="inhouse", external_id=f"parlai-{role}") for role in ("wizard", "apprentice")}
    wizard_turns = 0
    for topic, turns in dialogues:
        room = Room.objects.create(campaign=campaign, status=RoomStatus.COMPLETE, first_speaker=turns[0][0],
                                   turns_required=1, topic=topic[:300], end_reason="built for the ParlAI evaluation")
        seats = {role: Assignment.objects.create(campaign=campaign, worker=worker, room=room, role=role,
                                                 status=AssignmentStatus.FINISHED, outcome=Outcome.COMPLETED)
                 for role, worker in workers.items()}
        messages = []
        for seq, (role, text) in enumerate(turns, start=1):
            wizard = role == "wizard"
            wizard_turns += wizard
            messages.append(Message(room=room, seq=seq, sender=seats[role], role=role, client_id=f"parlai-{seq}", text=text,
                                    retrieved_passages=[],
                                    checked_sentence={"no_passages_used": "no_passages_used"} if wizard else None,
                                    checked_passage={"no_passages_used": "no_passages_used"} if wizard else None))
        Message.objects.bulk_create(messages)
    return wizard_turns


def export_test_split(out: Path, seed: int) -> list[str]:
    from collect.exporters import ExportOptions, export_dataset

    result = export_dataset("wow", out, ExportOptions(campaigns=("parlai-eval",), holdout_topics=0.0, valid=0.0, test=1.0, seed=seed))
    return result.notes


def parlai_eval(python: str, export_dir: Path, model: str, work: Path) -> dict[str, Any]:
    """ParlAI's report (its JSON --report-filename) of `model` on the export's random test split."""
    task_dir = work / "data" / "wizard_of_wikipedia"
    task_dir.mkdir(parents=True)
    for path in export_dir.glob("*.json"):
        shutil.copy(path, task_dir / path.name)
    (task_dir / ".built").write_text(f"{time.ctime()}\n1.0")  # the teacher's build version: nothing is downloaded
    report = work / f"{model}.json"
    command = [python, "-m", "parlai", "eval_model", "-t", TEACHER, "--label-type", "response", "--add-missing-turns", "all",
               "-m", model, "-dt", "test", "--datapath", str(work / "data"), "--report-filename", str(report),
               "--log-every-n-secs", "-1"]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"ParlAI failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(report.read_text())["report"]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wowpp", type=Path, default=REPO.parent / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json")
    parser.add_argument("--dialogues", type=int, default=0, help="at most this many (0: every distinct context)")
    parser.add_argument("--model", default="ir_baseline", help="a ParlAI model that ranks label candidates")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", type=Path, help="also write ParlAI's report and the counts here (JSON)")
    args = parser.parse_args(argv)
    python = os.environ.get("GROUNDWORK_PARLAI_PYTHON")
    if not python:
        raise SystemExit("set GROUNDWORK_PARLAI_PYTHON to a Python with ParlAI installed")
    django_setup()
    dialogues = dialogues_of(args.wowpp, args.dialogues)
    wizard_turns = rooms_build(dialogues)
    with tempfile.TemporaryDirectory(prefix="gw-parlai-") as work:
        export_dir = Path(work) / "export"
        notes = export_test_split(export_dir, args.seed)
        report = parlai_eval(python, export_dir, args.model, Path(work))
    print(f"{len(dialogues)} rooms, {wizard_turns} wizard turns; export notes: {notes or 'none'}")
    print(json.dumps(report, indent=1, sort_keys=True))
    print(f"{args.model} hits@1 {report['hits@1']:.3f}")
    if args.report:
        args.report.write_text(json.dumps({"rooms": len(dialogues), "wizard_turns": wizard_turns, "report": report}))
    return report


if __name__ == "__main__":
    main()
