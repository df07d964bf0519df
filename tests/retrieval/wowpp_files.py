"""Small WOW++-shaped files written by the tests themselves (never the published data)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

SEP = " <knowledge_separator> "

# Each context: its topic, the turns, then (article, sentence, confidence) candidates.
CONTEXTS = [
    (
        "Dog",
        ["I love dogs, do you?", "Yes! Which dog breeds bark the most?"],
        [
            ("Dog", "Dogs bark to warn their owners of strangers.", 0.9),
            ("Dog", "The dog is a domesticated descendant of the wolf.", 0.3),
            ("Cat", "Cats purr when they are content.", 0.0),
            ("Tea", "Tea is an aromatic beverage.", 0.0),
        ],
    ),
    (
        "Tea",
        ["Have you ever had green tea?", "I drink tea every morning, it is my favourite beverage."],
        [
            ("Coffee", "Coffee is brewed from roasted coffee beans.", 0.1),
            ("Tea", "Tea is an aromatic beverage prepared with hot water.", 0.8),
            ("Tea", "Green tea comes from unoxidised leaves.", 0.7),
            ("Tea", "Tea is an aromatic beverage prepared with hot water.", 0.6),  # a duplicate, merged
        ],
    ),
    (
        "Mountain",
        ["What do you think about mountains?", "I would like to climb a mountain one day."],
        [
            ("Mount Everest", "Mount Everest is Earth's highest mountain.", 0.5),
            ("Mount Everest", "Climbers attempt the summit every spring.", 0.2),
        ],
    ),  # nothing relevant: skipped by the metrics
    (
        "Jazz",
        ["Do you like jazz music?", "I love the improvisation in jazz."],
        [
            ("Blues", "Blues originated in the Deep South.", 0.1),
            ("Jazz", "Jazz is characterised by swing and improvisation.", 1.0),
            ("Guitar", "The guitar usually has six strings.", 0.0),
        ],
    ),
]


def write_wowpp(path: Path, contexts: list = CONTEXTS) -> Path:
    data = {}
    for number, (topic, turns, candidates) in enumerate(contexts):
        key = str(uuid.UUID(int=number + 1))
        data[key] = {
            "id": key,
            "topic": topic,
            "turns": turns,
            "annotated_sentences": [
                {"label": f"{article}{SEP}{sentence}", "article": article, "confidence": confidence,
                 "relevance": "relevant" if confidence >= 0.6 else "notRelevant"}
                for article, sentence, confidence in candidates
            ],
        }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def placement_contexts(n: int) -> list:
    """Contexts whose relevant sentence is always the first one of the topic's article, while the
    turns share their words with another article: a rule the learned ranker can pick up from
    placement features, and that word overlap alone gets wrong."""
    contexts = []
    for number in range(n):
        topic, other = f"Island{number}", f"Harbour{number}"
        contexts.append((
            topic,
            [f"Tell me about {topic}.", f"I heard the ferry boats in the harbour are old, crew number {number}."],
            [
                (topic, f"{topic} is a volcanic island in the south.", 0.9),
                (topic, f"Its population grew after {1900 + number}.", 0.1),
                (other, f"Ferry boats in the harbour carry an old crew, number {number}.", 0.2),
                (other, f"The harbour was dredged in {1950 + number}.", 0.0),
            ],
        ))
    return contexts
