"""The site behind the golden exports (tests/test_golden_exports.py), built the way a study builds
one: knowledge imported from files, a campaign of every task type, scripted dialogues through the
real socket path (`manage.py simulate`, seeded, one at a time), annotation jobs answered by scripted
annotators through the services; then every export of it, into one folder per dataset.

Its inputs are all here, so that a change to another test's fixtures never moves a golden file.
"""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from channels.layers import channel_layers
from django.core.management import call_command

from annotate.kinds.dialog_acts.exporter import export_curiosity_acts
from annotate.kinds.dialog_acts.acts import DIALOG_ACTS
from annotate.models import Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from collect.tasktypes.modelchat.bots import builtin_models_ensure
from collect.models import Campaign, Persona, Worker
from collect.services.matchmaking import worker_get_or_create
from retrieval.curiosity.factdb import SCHEMA, factdb_import
from retrieval.models import KnowledgeSource
from tests.golden_pins import wall_clock_settle

SEED = 50  # the simulations' seed
ANNOTATORS = ("ann-1", "ann-2")

ARTICLES = [  # WoW and model chat: one knowledge source, short articles
    ("Guitar", "The guitar is a fretted instrument with six strings. It is played by strumming or plucking."),
    ("Blues", "Blues is a music genre from the Deep South of the United States. The blues form is common in jazz and rock."),
    ("Jazz", "Jazz began in the African-American communities of New Orleans. It is known for swing and improvisation."),
    ("Tea", "Tea is a drink made by pouring hot water over the leaves of the tea plant. After water it is the most consumed drink."),
    ("Coffee", "Coffee is brewed from roasted coffee beans. It has a stimulating effect because of its caffeine."),
]
PERSONAS = [("i play the guitar in a small band.", ["Guitar", "Blues"]), ("i drink too much coffee.", ["Coffee", "Tea"])]

# Curiosity: a fact db in the release's layout (retrieval.curiosity.factdb): page -> section -> (fact, entities named).
FACTS = {
    "Namibia": {
        "Body": [("Namibia is a country in southern Africa on the Atlantic coast.", [])],
        "History": [
            ("Namibia was a German colony until the First World War.", ["Germany"]),
            ("South Africa ruled the territory after 1915.", ["South Africa"]),
            ("The capital Windhoek was founded as a fort.", ["Windhoek"]),
            ("Namibia became independent in 1990.", []),
        ],
        "Economy": [
            ("Diamond mining is the largest industry.", ["Diamond"]),
            ("Fishing in the Atlantic Ocean brings income.", ["Atlantic Ocean"]),
            ("Tourists visit the dunes of the Namib Desert.", ["Namib Desert"]),
        ],
        "Geography": [
            ("The Kalahari Desert covers the east.", ["Kalahari Desert"]),
            ("Namibia borders Angola in the north.", ["Angola"]),
            ("The Namib Desert is one of the oldest deserts.", ["Namib Desert"]),
        ],
    },
}
ENTITY_VIEWS = {"Germany": 900_000, "South Africa": 800_000, "Atlantic Ocean": 700_000, "Angola": 300_000,
                "Diamond": 400_000, "Windhoek": 90_000, "Kalahari Desert": 80_000, "Namib Desert": 70_000}
SUMMARIES = {"Namibia": "Namibia is a country in southern Africa.", "Windhoek": "Windhoek is the capital of Namibia."}

# DuConv: a graph where each topic links to exactly one other, so that the goal drawn does not
# depend on the order a database returns the candidate links in (retrieval/graph/goals.py).
TRIPLES = [
    ("Inception", "directed by", "Christopher Nolan"), ("Inception", "release year", "2010"),
    ("Inception", "genre", "heist thriller"), ("Inception", "running time", "148 minutes"),
    ("Inception", "starring", "Leonardo DiCaprio"),
    ("Christopher Nolan", "born in", "London"), ("Christopher Nolan", "occupation", "film director"),
    ("Christopher Nolan", "birth year", "1970"), ("Christopher Nolan", "known for", "nonlinear stories"),
    ("Spirited Away", "directed by", "Hayao Miyazaki"), ("Spirited Away", "release year", "2001"),
    ("Spirited Away", "genre", "animated fantasy"), ("Spirited Away", "award", "Academy Award for Best Animated Feature"),
    ("Hayao Miyazaki", "born in", "Tokyo"), ("Hayao Miyazaki", "occupation", "animator"),
    ("Hayao Miyazaki", "birth year", "1941"), ("Hayao Miyazaki", "co-founded", "Studio Ghibli"),
]
DUCONV_CONFIG = {"topics": ["Inception", "Spirited Away"], "knowledge_min": 6, "knowledge_max": 8}

# (protocol, campaign, dialogues) for `manage.py simulate`
SIMULATIONS = [("wow", "gold-wow", 3), ("curiosity", "gold-curiosity", 2), ("duconv", "gold-duconv", 2),
               ("model_chat", "gold-modelchat", 3), ("model_chat", "gold-modelchat-duconv", 1)]
# dataset folder -> export_dataset arguments
EXPORTS: dict[str, dict[str, Any]] = {
    # Split seeds chosen so that a held-out topic file and a file of two dialogues (candidate
    # responses drawn from each other) both have dialogues: 3 rooms cannot fill every file.
    "wow": {"dataset": "wow", "seed": 18, "holdout_topics": 0.3, "valid": 0.3, "test": 0.7},
    "curiosity": {"dataset": "curiosity", "holdout_topics": 0.0, "valid": 0.3, "test": 0.3},
    "duconv": {"dataset": "duconv", "seed": 5, "valid": 0.3, "test": 0.3},
    "duconv-samples": {"dataset": "duconv", "samples": True},
    "duconv-segmented": {"dataset": "duconv", "segment": True},
    "modelchat": {"dataset": "modelchat"},
    "wowpp": {"dataset": "wowpp", "job": "gold-relevance"},
}


def site_build(work: Path) -> None:
    """Knowledge, campaigns, dialogues and answered jobs (`work`: a folder for input files)."""
    wiki = _articles_import(work, "gold-wiki")
    facts = _factdb_import(work, "gold-facts")
    films = _triples_import(work, "gold-films")
    builtin_models_ensure()
    turns = {"min_turns": 2, "max_turns": 3, "turn_limit": 4}
    wow = Campaign.objects.create(slug="gold-wow", name="WoW", knowledge_source=wiki, **turns)
    curiosity_config = {"topics": ["Namibia"], "related_entities": 6, "popularity_buckets": 3, "tag": "gold"}
    Campaign.objects.create(slug="gold-curiosity", name="Curiosity", protocol="curiosity", knowledge_source=facts,
                            protocol_config=curiosity_config, **turns)
    Campaign.objects.create(slug="gold-duconv", name="DuConv", protocol="duconv", knowledge_source=films,
                            protocol_config=DUCONV_CONFIG, **turns)
    turns["max_turns"] = 2
    chat_config = {"models": {"kb-retrieval": 1, "tfidf-reply": 1}, "control": 1, "unseen_topics": ["Blues"]}
    chat = Campaign.objects.create(slug="gold-modelchat", name="Model chat", protocol="model_chat", knowledge_source=wiki,
                                   protocol_config=chat_config, **turns)
    chat_config = {"models": {"duconv-agent": 1}, "duconv": DUCONV_CONFIG, "onboarding_attempts": 0}
    Campaign.objects.create(slug="gold-modelchat-duconv", name="Model chat (DuConv)", protocol="model_chat",
                            knowledge_source=films, protocol_config=chat_config, **turns)
    for campaign in (wow, chat):
        Persona.objects.bulk_create(Persona(campaign=campaign, text=text, topics=topics) for text, topics in PERSONAS)

    for protocol, slug, dialogues in SIMULATIONS:
        channel_layers.backends.clear()  # a Redis layer is bound to the event loop that made it
        call_command("simulate", protocol, campaign=slug, dialogues=dialogues, concurrency=1, seed=SEED, stdout=io.StringIO())
    channel_layers.backends.clear()
    wall_clock_settle()
    _jobs_answer(work)


def _articles_import(work: Path, slug: str) -> KnowledgeSource:
    path = work / f"{slug}.jsonl"
    path.write_text("\n".join(json.dumps({"title": t, "text": x}) for t, x in ARTICLES), encoding="utf-8")
    call_command("import_knowledge", "jsonl", str(path), source=slug, stdout=io.StringIO())
    call_command("build_index", source=slug, stdout=io.StringIO())
    return KnowledgeSource.objects.get(slug=slug)


def _factdb_import(work: Path, slug: str) -> KnowledgeSource:
    path = work / "wiki_sql.sqlite.db"
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA)
    fid, mid = 100, 1
    for page, sections in FACTS.items():
        for section_idx, (section, rows) in enumerate(sections.items()):
            for paragraph_idx, (text, entities) in enumerate(rows):
                connection.execute("INSERT INTO fact VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   (fid, page, section_idx, section, paragraph_idx, text, 5000))
                for title in entities:
                    connection.execute("INSERT INTO mention VALUES (?, ?, ?, ?, ?, ?)",
                                       (mid, True, ENTITY_VIEWS[title], page, title, fid))
                    mid += 1
                fid += 3  # ids with gaps, as in the release
    connection.executemany("INSERT INTO wiki VALUES (?, ?, ?, ?)",
                           [(n, title, text, False) for n, (title, text) in enumerate(SUMMARIES.items(), 1)])
    connection.commit()
    connection.close()
    return factdb_import(path=path, slug=slug).source


def _triples_import(work: Path, slug: str) -> KnowledgeSource:
    path = work / f"{slug}.tsv"
    path.write_text("".join("\t".join(triple) + "\n" for triple in TRIPLES), encoding="utf-8")
    call_command("import_knowledge", "triples", str(path), source=slug, verbosity=0, stdout=io.StringIO())
    return KnowledgeSource.objects.get(slug=slug)


Answer = Callable[[int, int, dict[str, Any]], dict[str, Any]]  # (annotator, nth answer, item payload) -> answer
JOBS: list[tuple[str, list[str], Answer]] = [
    ("gold-relevance", ["--kind", "relevance", "--campaign", "gold-wow"],
     lambda a, n, p: {"selected": [i for i in range(len(p["candidates"])) if (i + a + n) % 3 == 0]}),
    ("gold-acts", ["--kind", "dialog_acts", "--campaign", "gold-curiosity"],
     lambda a, n, p: {"acts": [[DIALOG_ACTS[(i + a) % len(DIALOG_ACTS)]] for i in range(len(p["messages"]))]}),
    ("gold-duconv-eval", ["--kind", "duconv_eval", "--campaign", "gold-duconv"],
     lambda a, n, p: {"scores": {"coherence": (a + n) % 4, "goal_completion": p["auto_goal_completion"]}}),
    ("gold-pairs", ["--kind", "pairwise", "--question", "knowledgeable", "--campaign", "gold-modelchat"],
     lambda a, n, p: {"choice": "left" if (a + n) % 2 else "right", "reason": f"reason {a}.{n}"}),
]


def _jobs_answer(work: Path) -> None:
    """Relevance (WOW++), dialog acts, DuConv scoring and pairwise (ACUTE-Eval) jobs over the
    campaigns, and dialog acts on an imported Curiosity file, answered by the scripted annotators."""
    quiet = {"stdout": io.StringIO()}
    annotators = [worker_get_or_create(platform="inhouse", external_id=name) for name in ANNOTATORS]
    for slug, args, answer in JOBS:
        call_command("create_annotation_job", slug, *args, "--overlap", "2", "--completion-code", "GOLD", **quiet)
        _answer_everything(Job.objects.get(slug=slug), annotators, answer)
    # The imported file: the collected Curiosity dialogs' own export.
    release = work / "curiosity-release"
    call_command("export_dataset", "curiosity", out=release, holdout_topics=0.0, valid=0.0, test=0.0, **quiet)
    call_command("import_dataset", "curiosity-acts", str(release / "curiosity_dialogs.train.json"),
                 "--job", "gold-acts-imported", **quiet)
    _answer_everything(Job.objects.get(slug="gold-acts-imported"), annotators[:1], JOBS[1][2])


def _answer_everything(job: Job, workers: list[Worker], answer: Answer) -> None:
    """Each annotator in turn answers every item they are served, reporting the time it took."""
    for a, worker in enumerate(workers):
        n = 0
        while (served := assignment_next(job=job, worker=worker).assignment) is not None:
            payload = served.item.payload
            answer_submit(item_id=served.item.pk, worker=worker, time_spent_ms=1000 + 10 * n + a, **answer(a, n, payload))
            n += 1


def exports_write(out: Path) -> None:
    """Every export of the site, one folder per dataset under `out`."""
    for folder, options in EXPORTS.items():
        options = dict(options)
        call_command("export_dataset", options.pop("dataset"), out=out / folder, stdout=io.StringIO(), **options)
    job = Job.objects.get(slug="gold-acts-imported")
    export_curiosity_acts(job=job, path=out / "curiosity-acts" / "curiosity_dialogs.json")
    report = io.StringIO()
    call_command("annotation_report", "gold-duconv-eval", json=True, stdout=report)
    (out / "annotation-report").mkdir(parents=True)
    (out / "annotation-report" / "gold-duconv-eval-report.json").write_text(report.getvalue(), encoding="utf-8")
