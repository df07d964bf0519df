"""The rankers' words: see retrieval/words.py (shared with the index and Curiosity's fact scoring)."""

from retrieval.words import SNOWBALL, terms_for

__all__ = ["SNOWBALL", "terms_for"]
