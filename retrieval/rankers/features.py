"""What the learned ranker knows about each candidate sentence, one row per candidate.

Similarities are given raw and as z-scores within the call: a panel's scores mean something only
against each other. Which features, and why (measured on WOW++, README):
- lexical: stemmed TF-IDF cosines with the ranker's query (topic + last turns), the topic alone,
  each of the last three turns and the whole dialogue;
- reuse: the best match with the wizard's own earlier turns (annotators often pick the sentence the
  wizard already drew on);
- where it stands: from the topic's own article, first sentence of its article, its position
  there, its article named in the last turn or anywhere in the dialogue;
- semantic (optional, torch): MiniLM bi-encoder cosines with the last three turns, the whole
  dialogue, the topic and the wizard's earlier turns.
The dialogue is assumed to end on the partner's turn (the one the wizard answers next), as WOW++
contexts do and as the wizard's panel is built."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from retrieval.rankers import Candidate, encoded_text
from retrieval.rankers.tfidf import TfidfRanker

if TYPE_CHECKING:  # torch is imported only when the semantic features are asked for
    from retrieval.rankers.embedder import Embedder

LEXICAL = (
    "tfidf_query", "tfidf_query_z", "tfidf_topic_z", "tfidf_last1_z", "tfidf_last2_z", "tfidf_last3_z",
    "tfidf_dialogue_z", "tfidf_reuse", "tfidf_reuse_z",
    "topic_article", "first_in_article", "inverse_position", "title_in_last_turn", "title_in_dialogue",
)
SEMANTIC = (
    "minilm_last1", "minilm_last1_z", "minilm_last2_z", "minilm_last3_z", "minilm_dialogue", "minilm_dialogue_z",
    "minilm_topic_z", "minilm_reuse", "minilm_reuse_z",
)


def feature_names(*, semantic: bool) -> tuple[str, ...]:
    return LEXICAL + SEMANTIC if semantic else LEXICAL


def candidate_features(
    context: Sequence[str], candidates: Sequence[Candidate], *, topic: str, tfidf: TfidfRanker,
    embedder: Embedder | None = None,
) -> np.ndarray:
    """A (candidates x features) float32 matrix, columns in feature_names(semantic=embedder is not None)."""
    turns = list(context)
    columns = _lexical(turns, candidates, topic, tfidf) + _placement(turns, candidates, topic)
    if embedder is not None:
        columns += _semantic(turns, candidates, topic, embedder)
    return np.column_stack(columns).astype(np.float32)


def _lexical(turns: list[str], candidates: Sequence[Candidate], topic: str, tfidf: TfidfRanker) -> list[np.ndarray]:
    queries = [tfidf.query(turns, topic), topic, "\n".join(turns), *turns]
    rows = tfidf.similarities(queries, candidates)
    query, by_topic, dialogue, by_turn = rows[0], rows[1], rows[2], rows[3:]
    reuse = _best(by_turn[_wizard_turns(len(turns))], len(candidates))
    return [
        query, _z(query), _z(by_topic), *(_z(_turn(by_turn, back, len(candidates))) for back in (1, 2, 3)),
        _z(dialogue), reuse, _z(reuse),
    ]


def _placement(turns: list[str], candidates: Sequence[Candidate], topic: str) -> list[np.ndarray]:
    seen: dict[str, int] = {}
    positions = []
    for candidate in candidates:  # candidates of one article come in article order
        positions.append(seen.get(candidate.title, 0))
        seen[candidate.title] = positions[-1] + 1
    position = np.array(positions, dtype=np.float64)
    titles = [_words(c.title) for c in candidates]
    last = f" {_words(turns[-1])} " if turns else ""
    dialogue = f" {_words(' '.join(turns))} "
    topic_words = _words(topic)
    return [
        np.array([bool(topic_words) and title == topic_words for title in titles], dtype=np.float64),
        (position == 0).astype(np.float64),
        1.0 / (1.0 + position),
        np.array([bool(title) and f" {title} " in last for title in titles], dtype=np.float64),
        np.array([bool(title) and f" {title} " in dialogue for title in titles], dtype=np.float64),
    ]


def _semantic(turns: list[str], candidates: Sequence[Candidate], topic: str, embedder: Embedder) -> list[np.ndarray]:
    texts = [encoded_text(c) for c in candidates]
    sentences = embedder.encode_sentences(texts)
    queries = embedder.encode_queries([topic or " ", *turns])
    topic_vector, turn_vectors = queries[0], queries[1:]
    by_turn = turn_vectors @ sentences.T if turns else np.zeros((0, len(texts)))
    dialogue = sentences @ turn_vectors.mean(axis=0) if turns else np.zeros(len(texts))
    reuse = _best(by_turn[_wizard_turns(len(turns))], len(texts))
    last = _turn(by_turn, 1, len(texts))
    return [
        last, _z(last), _z(_turn(by_turn, 2, len(texts))), _z(_turn(by_turn, 3, len(texts))), dialogue, _z(dialogue),
        _z(sentences @ topic_vector) if topic else np.zeros(len(texts)), reuse, _z(reuse),
    ]


def _wizard_turns(n_turns: int) -> list[int]:
    return list(range(n_turns - 2, -1, -2))


def _turn(by_turn: np.ndarray, back: int, n: int) -> np.ndarray:
    return by_turn[-back] if len(by_turn) >= back else np.zeros(n)


def _best(rows: np.ndarray, n: int) -> np.ndarray:
    return rows.max(axis=0) if len(rows) else np.zeros(n)


def _z(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))
