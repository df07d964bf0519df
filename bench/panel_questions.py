"""Panels on the question asked: the wizard's knowledge panel, built as a room builds it, for
specific apprentice questions and for the contexts of a WOW++ file.

    .venv/bin/python bench/panel_questions.py [--questions FILE] [--wowpp FILE] [--turn-query words|topic|turn]
                                              [--k 7] [--show] [--json]

Every panel goes through the services the chat and its knowledge workers call: a room of a
Wizard of Wikipedia campaign on the demo knowledge, the topic chosen (rooms.room_act), each turn
stored (rooms.message_post) and retrieved for (rooms.message_after, as collect.tasks does), the
wizard's panel after the apprentice's turn, and its order from the live ranker against the room's
dialogue (selectors.dialogue_context, rerank.panel_rank, as the knowledge workers rank it).

- Questions (default bench/data/panel_questions.json, written as bench/data/panel_questions.md
  says): the wizard opens with the first sentence of the topic passage (checked), the apprentice
  asks the question. Reported: the share of panels holding an answering article, the share with
  one among the panel's first k articles in the ranker's order, and recall@k (the share of the
  answering articles among those k); the share answered apart for the questions that write an
  answering article's title and for the others.
- WOW++ (default ../shared/data/wowpp/test_random_augmented_wow.json; skipped when absent): each
  context's turns are posted (the last is the apprentice's), and the articles the annotators found
  relevant (a sentence with confidence >= 0.6; those the knowledge has) are looked for. Reported:
  recall@k of the turn's own retrieval (the 7 articles of its retrieved_passages: the figure
  bench/retrieval_recall.py gives), of the panel's first k articles, and of the whole panel; the
  same without the topic's own article (the topic passage shows it anyway).

`--turn-query` sets the campaign's turn_query (collect/tasktypes/wow/turn_query.py; default: its
default). Uses the configured database and index when they hold the demo, else a throwaway SQLite
database with the demo knowledge (bench/_setup.py). The bench's rooms are deleted at the end."""

from __future__ import annotations

import argparse
import json
import re
import sys
import uuid
from pathlib import Path
from statistics import fmean
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "bench" / "data" / "panel_questions.json"
WOWPP = ROOT.parent / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"
CAMPAIGN = "panel-bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--wowpp", type=Path, default=WOWPP)
    parser.add_argument("--turn-query", choices=["words", "topic", "turn"], help="the campaign's turn_query")
    parser.add_argument("--k", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="print every panel's first k titles, not only the misses")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench._setup import django_with_demo_knowledge

    django_with_demo_knowledge()
    bench = Bench(turn_query=args.turn_query)
    try:
        summary = {"questions": bench.questions(json.loads(args.questions.read_text(encoding="utf-8")), args.k, args.show)}
        if args.wowpp.is_file():
            summary["wowpp"] = bench.wowpp(json.loads(args.wowpp.read_text(encoding="utf-8")), args.k, args.show)
        summary["ranked_by"] = sorted(bench.ranked_by)
    finally:
        bench.close()
    print(json.dumps(summary, indent=2) if args.json else report(summary, args))


class Bench:
    def __init__(self, *, turn_query: str | None) -> None:
        from collect.tasktypes.wow.demo import DEMO_SLUG
        from collect.models import Campaign

        demo = Campaign.objects.get(slug=DEMO_SLUG)
        config = {"turn_query": turn_query} if turn_query else {}
        Campaign.objects.filter(slug=CAMPAIGN).delete()
        self.campaign = Campaign.objects.create(
            slug=CAMPAIGN, name="Panel bench", knowledge_source=demo.knowledge_source, protocol_config=config,
            min_turns=20, max_turns=20, turn_limit=50,
        )
        self.titles = set(demo.knowledge_source.articles.values_list("title", flat=True))
        self.ranked_by: set[str] = set()

    def close(self) -> None:
        from collect.models import Worker

        self.campaign.delete()
        Worker.objects.filter(external_id__startswith="bench-", assignments__isnull=True).delete()

    def panel(self, topic: str, turns: list[str]) -> tuple[list[str], list[str]]:
        """(the articles of the wizard's ranked panel after the last turn, which is the apprentice's,
        in order; the titles retrieved for that turn)."""
        from bench._setup import wow_room
        from collect import selectors
        from collect.models import Message, Persona, RoomStatus
        from collect.services import rooms
        from retrieval.rerank import panel_rank

        first = "apprentice" if len(turns) % 2 else "wizard"
        persona = Persona.objects.create(campaign=self.campaign, text="bench", topics=[topic])
        room, seats = wow_room(self.campaign, first_speaker=first, persona=persona, status=RoomStatus.CHOOSING_TOPIC)
        rooms.room_act(room_id=room.pk, assignment=seats[first], name="choose_topic", frame={"topic": topic})
        frame: dict[str, Any] = {}
        for seq, text in enumerate(turns, 1):
            role = first if seq % 2 else ("wizard" if first == "apprentice" else "apprentice")
            checked = {"source": "chosen", "passage": 0, "sentence": 0} if seq == 1 else {"no_passages_used": True}
            posted = rooms.message_post(room_id=room.pk, assignment=seats[role], client_id=uuid.uuid4().hex, text=text,
                                        frame={"checked": checked} if role == "wizard" else {})
            frame = rooms.message_after(message_id=posted.message.pk).knowledge.get("wizard") or {}
        context = selectors.dialogue_context(room_id=room.pk, after_seq=frame["after_seq"])
        ranked = panel_rank(context=context["turns"], passages=frame["passages"], topic=context["topic"],
                            after_seq=frame["after_seq"], language=context["language"])
        self.ranked_by.add(ranked["ranked_by"])
        retrieved = Message.objects.get(room=room, seq=len(turns)).retrieved_passages
        # The wizard's screen shows an article once, where it first comes (collect/tasktypes/wow/static/wow/knowledge.js).
        titles = list(dict.fromkeys(p["title"] for p in ranked["passages"]))
        return titles, [next(iter(p)) for p in retrieved]

    def questions(self, questions: list[dict[str, Any]], k: int, show: bool) -> dict[str, Any]:
        from retrieval.services import topic_passage

        answered, first_k, recall, naming = [], [], [], []
        for question in questions:
            topic, answers = question["topic"], set(question["answers"])
            opening = topic_passage(source_id=self.campaign.knowledge_source_id, title=topic)[0]
            titles, _ = self.panel(topic, [opening, question["question"]])
            answered.append(bool(answers & set(titles)))
            first_k.append(bool(answers & set(titles[:k])))
            recall.append(len(answers & set(titles[:k])) / len(answers))
            naming.append(names_an_answer(question["question"], answers))
            if show or not first_k[-1]:
                mark = "hit " if first_k[-1] else ("late" if answered[-1] else "miss")
                print(f"{mark} [{topic}] {question['question']} -> {', '.join(titles[:k])} (wanted {', '.join(sorted(answers))})")
        named = [a for a, n in zip(answered, naming) if n]
        unnamed = [a for a, n in zip(answered, naming) if not n]
        return {"n": len(questions), "topics": len({q["topic"] for q in questions}), "answered_in_panel": fmean(answered),
                f"answered_in_first_{k}": fmean(first_k), f"recall@{k}": fmean(recall),
                "naming_an_answer": len(named), "answered_in_panel_naming": fmean(named) if named else None,
                "answered_in_panel_not_naming": fmean(unnamed) if unnamed else None}

    def wowpp(self, data: dict[str, Any], k: int, show: bool) -> dict[str, Any]:
        rows: dict[str, list[float]] = {"turn": [], "first_k": [], "panel": [], "turn_wo": [], "first_k_wo": [], "panel_wo": []}
        for record in data.values():
            relevant = {s["article"].removesuffix("_gold") for s in record["annotated_sentences"] if s["confidence"] >= 0.6}
            relevant &= self.titles
            if not relevant:
                continue
            titles, retrieved = self.panel(record["topic"], record["turns"])
            for suffix, wanted in (("", relevant), ("_wo", relevant - {record["topic"]})):
                if wanted:
                    rows["turn" + suffix].append(len(wanted & set(retrieved)) / len(wanted))
                    rows["first_k" + suffix].append(len(wanted & set(titles[:k])) / len(wanted))
                    rows["panel" + suffix].append(len(wanted & set(titles)) / len(wanted))
            if show:
                print(f"wow++ [{record['topic']}] {record['turns'][-1][:60]} -> {', '.join(titles[:k])} (relevant {', '.join(sorted(relevant))})")
        return {"contexts": len(rows["turn"]), "contexts_without_topic": len(rows["turn_wo"]),
                **{name: fmean(values) if values else None for name, values in rows.items()}}


def names_an_answer(question: str, answers: set[str]) -> bool:
    """Whether the question writes an answering article's title, or its name without the
    qualifier ("Dune" for "Dune (novel)"), in any case."""
    names = {QUALIFIER.sub("", title) for title in answers}
    return any(f" {words(name)} " in f" {words(question)} " for name in names)


QUALIFIER = re.compile(r" \([^()]*\)$")


def words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def report(summary: dict[str, Any], args: argparse.Namespace) -> str:
    q, k = summary["questions"], args.k
    lines = [
        f"turn_query: {args.turn_query or 'the default'}; panels ranked by {', '.join(summary['ranked_by'])}",
        f"{args.questions.name}: {q['n']} questions over {q['topics']} topics",
        (f"  answered in the panel {q['answered_in_panel']:.3f}, in its first {k} {q[f'answered_in_first_{k}']:.3f}, "
         f"recall@{k} {q[f'recall@{k}']:.3f}"),
        (f"  answered in the panel: {q['answered_in_panel_naming']:.3f} of the {q['naming_an_answer']} that name an "
         f"answering article, {q['answered_in_panel_not_naming']:.3f} of the others"),
    ]
    if w := summary.get("wowpp"):
        lines += [
            (f"{args.wowpp.name}: {w['contexts']} contexts with a relevant article in the knowledge "
             f"({w['contexts_without_topic']} with one besides the topic's own)"),
            (f"  recall@{k}: the turn's retrieval {w['turn']:.3f}, the panel's first {k} {w['first_k']:.3f}, "
             f"the whole panel {w['panel']:.3f}"),
            (f"  without the topic's article: the turn's retrieval {w['turn_wo']:.3f}, the panel's first {k} "
             f"{w['first_k_wo']:.3f}, the whole panel {w['panel_wo']:.3f}"),
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
