"""A site holding every kind of dataset Groundwork exports, and every export of it, for the backup
tests. A child process runs EXPORT_IN_CHILD to write the exports of the database its environment
configures (a restored copy)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management import call_command

from annotate.kinds.dialog_acts.exporter import export_curiosity_acts
from annotate.models import Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from collect.exporters import ExportOptions, export_dataset
from collect.tasktypes.curiosity.exporter import DB_FILE, FILES as CURIOSITY_FILES
from collect.tasktypes.curiosity.importer import curiosity_import
from collect.models import Worker

WIDE = dict(holdout_topics=0.4, valid=0.2, test=0.2)
EXPORTS: list[tuple[str, str, ExportOptions]] = [
    ("wow", "wow", ExportOptions(**WIDE)),
    ("wow-incomplete", "wow", ExportOptions(include_incomplete=True)),
    ("curiosity", "curiosity", ExportOptions(campaigns=("bk-curiosity",))),
    ("wowpp-votes", "wowpp", ExportOptions(job="bk-relevance", include_partial=True)),
    ("wowpp-imported", "wowpp", ExportOptions(job="bk-wowpp")),
    ("duconv", "duconv", ExportOptions(valid=0.3, test=0.3)),
    ("duconv-samples", "duconv", ExportOptions(samples=True)),
    ("modelchat", "modelchat", ExportOptions()),
]
ACTS_JOB = "bk-acts-imported"

DUCONV_SESSIONS = [
    {
        "goal": [["START", "流浪地球", "吴京"], ["流浪地球", "主演", "吴京"]],
        "knowledge": [["流浪地球", "主演", "吴京"], ["流浪地球", "类型", "科幻"], ["吴京", "星座", "白羊座"]],
        "conversation": ["你 喜欢 看 科幻 电影 吗 ？", "喜欢 啊 。", "流浪地球 是 一部 科幻 电影 。", "听说 过 。",
                         "主演 是 吴京 。", "他 是 白羊座 吧 。"],
    },
    {
        "goal": [["START", "战狼", "吴京"], ["战狼", "导演", "吴京"]],
        "knowledge": [["战狼", "导演", "吴京"], ["战狼", "类型", "动作"], ["吴京", "职业", "演员"]],
        "conversation": ["最近 看 电影 了 吗 ？", "没有 。", "战狼 很 好看 ， 是 动作片 。", "谁 导演 的 ？", "吴京 导演 的 。"],
    },
]


def _answer_everything(job: Job, workers: list[Worker], answer: dict) -> int:
    """Every worker answers every item they are served: votes, labels or pairwise choices."""
    answered = 0
    for worker in workers:
        while (served := assignment_next(job=job, worker=worker).assignment) is not None:
            item = served.item
            kwargs = answer(item.payload) if callable(answer) else answer
            answer_submit(item_id=item.pk, worker=worker, **kwargs)
            answered += 1
    return answered


def site_fill(tmp_path: Path) -> None:
    """Wizard of Wikipedia rooms (complete and ended early), Curiosity dialogs with their fact db
    (a file under var/) and crowd dialog-act labels, WOW++ relevance votes and an imported WOW++
    job, DuConv sessions, a model-chat campaign with a pairwise job and its judgments."""
    from tests.collect.test_export_wow import wow_room
    from tests.annotate.test_curiosity import dialog as acts_dialog
    from tests.curiosity.dialogs import dialog, md5, write_dialogs
    from tests.curiosity.factdb import write_factdb
    from tests.evaluation.campaign import make_campaign as make_modelchat_campaign, populate
    from tests.factories import make_campaign

    tmp_path.mkdir(parents=True, exist_ok=True)
    quiet = {"stdout": open("/dev/null", "w")}
    annotators = [Worker.objects.create(external_id=name) for name in ("alice", "bob")]

    wow = make_campaign(slug="bk-wow", protocol="wow")
    for n, topic in enumerate(["Science fiction", "Blues", "Jazz", "Guitar", "Tea", "Science fiction"]):
        wow_room(wow, topic=topic, marker=f"room {n}")
    wow_room(wow, topic="Blues", status="incomplete", rating=None, messages=3, marker="early")

    db = tmp_path / DB_FILE
    ids = write_factdb(db)
    checksum = md5(db)
    release = tmp_path / "curiosity"
    release.mkdir()
    dialogs = [dialog(11, "Namibia", ids["Namibia"]), dialog(12, "Tahiti", ids["Tahiti"])]
    curiosity_import(path=write_dialogs(release / CURIOSITY_FILES["train"], dialogs, checksum), facts=db, campaign="bk-curiosity")
    curiosity_import(path=write_dialogs(release / CURIOSITY_FILES["val"], [dialog(21, "Namibia", ids["Namibia"])], checksum),
                     campaign="bk-curiosity")
    # Labels on collected dialogs (the Curiosity export's dialog_acts) and on an imported file.
    labels = lambda payload: {"acts": [["inform_response"] if i % 2 else ["request_topic"] for i in range(len(payload["messages"]))]}  # noqa: E731
    call_command("create_annotation_job", "bk-acts", "--kind", "dialog_acts", "--campaign", "bk-curiosity", "--overlap", "2", **quiet)
    _answer_everything(Job.objects.get(slug="bk-acts"), annotators, labels)
    acts_file = tmp_path / "curiosity_dialogs.test.json"
    acts_file.write_text(json.dumps({"dialogs": [acts_dialog(7), acts_dialog(8)], "db_checksum": "abc123"}))
    call_command("import_dataset", "curiosity-acts", str(acts_file), "--job", ACTS_JOB, **quiet)
    _answer_everything(Job.objects.get(slug=ACTS_JOB), annotators[:1], labels)

    call_command("create_annotation_job", "bk-relevance", "--kind", "relevance", "--campaign", "bk-wow", "--overlap", "2", **quiet)
    _answer_everything(Job.objects.get(slug="bk-relevance"), annotators[:1],
                       lambda payload: {"selected": list(range(0, len(payload["candidates"]), 2))})
    sentence = lambda text, confidence: {  # noqa: E731
        "label": f"Blues <knowledge_separator> {text}", "confidence": confidence,
        "relevance": "relevant" if confidence >= 0.6 else "notRelevant", "article": "Blues",
    }
    wowpp = tmp_path / "bk_augmented_wow.json"
    wowpp.write_text(json.dumps({"c1": {"turns": ["Hi", "Do you like blues?"], "topic": "Blues",
                                        "annotated_sentences": [sentence("Blues is a genre.", 0.7), sentence("It is old.", 0.1)]}}))
    call_command("import_dataset", "wowpp", str(wowpp), "--job", "bk-wowpp", **quiet)

    duconv = tmp_path / "dev.txt"
    duconv.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in DUCONV_SESSIONS), encoding="utf-8")
    call_command("import_dataset", "duconv", str(duconv), verbosity=0, **quiet)

    populate(make_modelchat_campaign())
    call_command("create_annotation_job", "bk-pairs", "--kind", "pairwise", "--question", "knowledgeable",
                 "--campaign", "eval-mc", "--overlap", "1", **quiet)
    _answer_everything(Job.objects.get(slug="bk-pairs"), annotators[:1], {"choice": "left", "reason": "knew more"})


def exports_write(out: Path) -> None:
    """Every export of the site, each into a folder of its own under `out`."""
    for folder, dataset, options in EXPORTS:
        export_dataset(dataset, out / folder, options)
    (out / "acts").mkdir(parents=True)
    export_curiosity_acts(job=Job.objects.get(slug=ACTS_JOB), path=out / "acts" / "labeled.json")


def exported_files(out: Path) -> dict[str, bytes]:
    return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}


# For a child process: Django is set up before this module's imports.
EXPORT_IN_CHILD = "import sys, django; django.setup(); from tests.backup.every_kind import exports_write; exports_write(__import__('pathlib').Path(sys.argv[1]))"
