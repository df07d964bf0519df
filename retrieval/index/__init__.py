"""Hashed unigram+bigram TF-IDF indexes, DrQA style: built offline, stored term-major, memory-mapped
once per process."""

from retrieval.index.build import index_build
from retrieval.index.store import index_load
from retrieval.index.term_major import TermMajorIndex

__all__ = ["TermMajorIndex", "index_build", "index_load"]
