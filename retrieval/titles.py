"""The articles a chat turn names: a knowledge source's titles found in a turn's words.

"Did he ever visit Florence?" names Florence, "the sistine chapel ceiling" the Sistine Chapel: the
wizard's panel holds those articles even where TF-IDF would rank other ones above them. The titles
are stored with the source's TF-IDF index (`title_keys.npy`, `title_docs.npy`, `title_text.npy`,
`title_offsets.npy` in its build directory, written by `index_build`), so that a turn costs one
hash per token and a binary search of its spans' keys, not a scan of the titles: a turn of n
tokens looks up at most n × MAX_TITLE_TOKENS keys, whatever the number of titles.

Matching, longest title first, never overlapping, each article once:
- A key is a title's tokens (words, ideographs, punctuation marks) with accents dropped and case folded, so
  "Paco de Lucia" meets "Paco de Lucía". A title with a qualifier, "Dune (novel)", also has its
  bare name "Dune" as a key, unless another title is that name or shares it ("Mercury (planet)",
  "Mercury (element)").
- A title of several words matches in any case ("manhattan project") if one of its words is not a
  stop word ("the who" does not match The Who; "The Who" does).
- A one-word title matches only as written ("Florence", never "florence"; "US", never "us"), not
  at the start of a sentence, where every word is capitalised ("Well, …" is not the Well article),
  not when it is a stop word other than an acronym, and never when it is a number ("1933").
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval.words import CJK

# Words, single ideographs or kana, and punctuation marks: the tokens retrieval.entities links by.
TOKEN = re.compile(rf"[{CJK}]|[^\W{CJK}]+|[^\w\s]", re.UNICODE)
MAX_TITLE_TOKENS = 8  # longer titles are not looked for in turns (and rarely typed)
FILES = ("title_keys", "title_docs", "title_text", "title_offsets")
_QUALIFIER = re.compile(r"^(.+?) \([^()]+\)$")  # "Dune (novel)" → "Dune"
_SENTENCE_END = frozenset(".!?")


def fold(token: str) -> str:
    """A token without accents, case folded ("Lucía" → "lucia")."""
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def title_key(tokens: Sequence[str]) -> int:
    """The 64-bit key of a sequence of tokens: sum of h(token j) * P^j + length * L, modulo 2^64,
    h the 64-bit BLAKE2b of the folded token. Made so that the keys of all spans of a turn come
    from one hash per token and a few vector operations (TitleIndex.spans)."""
    key = len(tokens) * _LENGTH
    for j, token in enumerate(tokens):
        key += _token_hash(token) * pow(_P, j, 1 << 64)
    return key & _MASK


_P = 0x9E3779B97F4A7C15  # odd: its powers never vanish modulo 2^64
_LENGTH = 0xC2B2AE3D27D4EB4F
_MASK = (1 << 64) - 1


def _token_hash(token: str) -> int:
    return int.from_bytes(hashlib.blake2b(fold(token).encode("utf-8"), digest_size=8).digest(), "little")


@dataclass(frozen=True)
class TitleIndex:
    keys: np.ndarray  # uint64, sorted
    docs: np.ndarray  # int64 Article pk of each key
    text: np.ndarray  # uint8: the UTF-8 titles, one after the other
    offsets: np.ndarray  # int64, len(keys) + 1: title i is text[offsets[i]:offsets[i + 1]]

    def title(self, entry: int) -> str:
        return bytes(self.text[self.offsets[entry] : self.offsets[entry + 1]]).decode("utf-8")

    def spans(self, tokens: Sequence[str]) -> dict[int, list[tuple[int, list[int]]]]:
        """start → [(length, the entries whose key that span of tokens has)], longest first."""
        if not tokens or not len(self.keys):
            return {}
        hashes = np.fromiter((_token_hash(t) for t in tokens), dtype=np.uint64, count=len(tokens))
        keys = np.zeros(len(tokens), dtype=np.uint64)
        found: dict[int, list[tuple[int, list[int]]]] = {}
        for n in range(1, min(MAX_TITLE_TOKENS, len(tokens)) + 1):
            starts = len(tokens) - n + 1  # the spans of n tokens start at 0 .. starts - 1
            power = np.uint64(pow(_P, n - 1, 1 << 64))
            keys = keys[:starts] + hashes[n - 1 : n - 1 + starts] * power  # arrays wrap modulo 2^64
            wanted = keys + np.uint64(n * _LENGTH & _MASK)
            lo = np.searchsorted(self.keys, wanted, side="left")
            hi = np.searchsorted(self.keys, wanted, side="right")
            for i in np.flatnonzero(hi > lo).tolist():
                found.setdefault(i, []).insert(0, (n, list(range(int(lo[i]), int(hi[i])))))
        return found

    def named(self, text: str, *, exclude: str = "", stop_words: frozenset[str] = frozenset()) -> list[int]:
        """The Article pks of the titles `text` names, in order of appearance; `exclude` (the room's
        topic, already on the panel) is never returned. `stop_words`: lower-case words of the
        language that no one-word title may be, and that cannot make a longer title on their own."""
        tokens = TOKEN.findall(text)
        found = self.spans(tokens)
        starts = {0} | {i + 1 for i, t in enumerate(tokens) if t in _SENTENCE_END}
        named: list[int] = []
        i = 0
        while i < len(tokens):
            taken = 0
            for n, entries in found.get(i, []):
                surface = tokens[i : i + n]
                matched = [e for e in entries if _matches(self.title(e), surface, i in starts, stop_words)]
                if matched:
                    # Titles that differ only in case or accents: the one written as in the turn.
                    entry = min(matched, key=lambda e: TOKEN.findall(self.title(e)) != surface)
                    pk = int(self.docs[entry])
                    if self.title(entry) != exclude and pk not in named:
                        named.append(pk)
                    taken = n
                    break
            i += taken or 1
        return named


def _matches(title: str, surface: Sequence[str], at_sentence_start: bool, stop_words: frozenset[str]) -> bool:
    """Whether the tokens `surface` (whose folded key is the title's or its bare name's) name it."""
    for name in _names(title):
        written = TOKEN.findall(name)
        if [fold(t) for t in written] != [fold(t) for t in surface]:
            continue
        if len(written) == 1:
            word = written[0]
            acronym = word.isupper() and len(word) > 1
            return (
                list(surface) == written and not at_sentence_start and not word.isdigit()
                and (acronym or word.lower() not in stop_words)
            )
        if list(surface) == written:
            return True
        return any(t.isalnum() and t.lower() not in stop_words for t in written)
    return False


def _names(title: str) -> list[str]:
    bare = _QUALIFIER.match(title)
    return [title, bare.group(1)] if bare else [title]


class TitleIndexWriter:
    """Collects (Article pk, title) rows as an index build streams them, ~30 bytes per title
    beyond its text; `save(build)` writes the arrays into the build directory."""

    def __init__(self) -> None:
        self._keys, self._docs = array("Q"), array("q")
        self._bare_keys, self._bare_docs = array("Q"), array("q")
        self._text = bytearray()
        self._offsets = array("q", [0])
        self._bare_titles: list[int] = []  # the title (row number) of each bare name

    def add(self, pk: int, title: str) -> None:
        tokens = TOKEN.findall(title)
        if not tokens:
            return
        row = len(self._offsets) - 1
        self._text += title.encode("utf-8")
        self._offsets.append(len(self._text))
        self._keys.append(title_key(tokens))
        self._docs.append(pk)
        bare = _QUALIFIER.match(title)
        if bare and (bare_tokens := TOKEN.findall(bare.group(1))):
            self._bare_keys.append(title_key(bare_tokens))
            self._bare_docs.append(pk)
            self._bare_titles.append(row)

    def arrays(self) -> dict[str, np.ndarray]:
        keys = np.frombuffer(self._keys, dtype=np.uint64)
        bare_keys = np.frombuffer(self._bare_keys, dtype=np.uint64)
        # A bare name is kept only where it names one article and no title is that name.
        values, counts = np.unique(bare_keys, return_counts=True)
        unique = values[counts == 1]
        keep = np.isin(bare_keys, unique) & ~np.isin(bare_keys, keys)
        rows = np.concatenate([np.arange(len(keys)), np.asarray(self._bare_titles, dtype=np.int64)[keep]])
        all_keys = np.concatenate([keys, bare_keys[keep]])
        all_docs = np.concatenate([np.frombuffer(self._docs, dtype=np.int64), np.frombuffer(self._bare_docs, dtype=np.int64)[keep]])
        order = np.argsort(all_keys, kind="stable")
        rows = rows[order]
        starts = np.frombuffer(self._offsets, dtype=np.int64)
        lengths = starts[1:] - starts[:-1]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths[rows], out=offsets[1:])
        text = np.frombuffer(bytes(self._text), dtype=np.uint8)
        pieces = [text[starts[r] : starts[r + 1]] for r in rows]
        return {
            "title_keys": all_keys[order],
            "title_docs": all_docs[order],
            "title_text": np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint8),
            "title_offsets": offsets,
        }

    def save(self, build: Path) -> None:
        for name, values in self.arrays().items():
            np.save(build / f"{name}.npy", values)


def title_index_of(rows: Iterable[tuple[int, str]]) -> TitleIndex:
    """A TitleIndex in memory from (Article pk, title) rows (an index built without its titles)."""
    writer = TitleIndexWriter()
    for pk, title in rows:
        writer.add(pk, title)
    arrays = writer.arrays()
    return TitleIndex(arrays["title_keys"], arrays["title_docs"], arrays["title_text"], arrays["title_offsets"])


def title_index_load(build: Path) -> TitleIndex | None:
    """The titles stored in an index build, memory-mapped; None for a build made without them."""
    if not all((build / f"{name}.npy").is_file() for name in FILES):
        return None
    keys, docs, text, offsets = (np.load(build / f"{name}.npy", mmap_mode="r") for name in FILES)
    return TitleIndex(keys, docs, text, offsets)

