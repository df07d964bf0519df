"""WikiExtractor JSON Lines (`--json`): {"id", "url", "title", "text"} a line, read as a stream with
the byte offset after each line, so an interrupted import resumes where it stopped.

Sections, when the dump has them, become aspects (Sentence.section):
- an explicit "sections" list of {"title"|"heading", "text"} objects (our own and several other
  exporters' shape);
- `--html` output: <h2>History</h2> lines;
- `--sections` plain output: WikiExtractor writes each heading as a line of its own, with a period
  added, right before the section's first paragraph ("History."). A line is taken for a heading
  only when it is short (at most 6 words, 60 characters), has no other punctuation and the next
  line is a longer paragraph; a one-line paragraph of that shape would be mistaken for one.
Without headings only the first paragraph is kept, as the `jsonl` format does. With headings, the
first paragraph is the lead, the rest of the introduction is the aspect "Introduction", then the
sections follow in order (nested headings are flattened to their last level)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

from retrieval.importers.records import BadRecord, Record, check_record, json_object

INTRO_SECTION = "Introduction"
SECTION_MAX = 300  # Sentence.section's max_length
_HTML_HEADING = re.compile(r"^<h(\d)>(.*?)</h\1>$")
_PLAIN_HEADING = re.compile(r"^[^\W\d_][^.,;:!?()\[\]\"“”]{0,58}[.!?]$")
_TAGS = re.compile(r"<[^>]+>")


def read(path: Path) -> Iterator[Record | BadRecord]:
    for item, _ in read_from(path, 0):
        yield item


def read_from(path: Path, offset: int) -> Iterator[tuple[Record | BadRecord, int]]:
    """(record, byte offset just after its line) for each non-empty line from `offset` on."""
    with path.open("rb") as lines:
        lines.seek(offset)
        number = _line_number(path, offset)
        for raw in lines:
            offset += len(raw)
            number += 1
            if raw.strip():
                yield parse_line(f"line {number}", raw), offset


def _line_number(path: Path, offset: int) -> int:
    """Lines before `offset` (always just after a newline), so messages after a resume name the right line."""
    count, left = 0, offset
    with path.open("rb") as file:
        while left > 0 and (chunk := file.read(min(2**20, left))):
            count += chunk.count(b"\n")
            left -= len(chunk)
    return count


def parse_line(where: str, raw: bytes) -> Record | BadRecord:
    obj = json_object(where, raw)
    if isinstance(obj, BadRecord):
        return obj
    title, text, sections = obj.get("title"), obj.get("text"), obj.get("sections")
    if not isinstance(text, str):
        return check_record(where, title=title, lead=text)
    if sections is not None and not _valid_sections(sections):
        return BadRecord(where, "'sections' must be a list of {\"title\", \"text\"} objects")
    lead, parsed = split_article(text, title if isinstance(title, str) else "", sections or [])
    record = check_record(where, title=title, lead=lead, category=obj.get("category") or "")
    return record._replace(sections=tuple(parsed)) if isinstance(record, Record) else record


def split_article(text: str, title: str, explicit: list[dict[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """(lead paragraph, [(heading, text), ...]) of one article's text."""
    lines = [line.strip() for line in text.split("\n")]
    lines = [line for line in lines if line]
    if lines and lines[0] == title.strip() and len(lines) > 1:  # WikiExtractor repeats the title
        lines = lines[1:]
    if not lines:
        return "", []
    lead, rest = lines[0], lines[1:]
    sections: list[tuple[str, list[str]]] = [(INTRO_SECTION, [])]
    found = bool(explicit)
    for number, line in enumerate(rest):
        heading = _heading(line, rest[number + 1] if number + 1 < len(rest) else None)
        if heading is not None:
            found = True
            sections.append((heading[:SECTION_MAX], []))
        else:
            sections[-1][1].append(_TAGS.sub("", line))
    for section in explicit:
        heading = str(section.get("title") or section.get("heading") or "").strip()[:SECTION_MAX]
        sections.append((heading or INTRO_SECTION, [str(section.get("text") or "")]))
    if not found:
        return _TAGS.sub("", lead), []
    return _TAGS.sub("", lead), [(name, "\n".join(body)) for name, body in sections if any(body)]


def _heading(line: str, following: str | None) -> str | None:
    if match := _HTML_HEADING.match(line):
        return html.unescape(_TAGS.sub("", match.group(2))).strip() or None
    if (
        following is not None
        and len(following) > 2 * len(line)
        and _HTML_HEADING.match(following) is None
        and _PLAIN_HEADING.match(line)
        and len(line.split()) <= 6
    ):
        return line[:-1].strip() if line.endswith(".") else line
    return None


def _valid_sections(sections: object) -> bool:
    return isinstance(sections, list) and all(
        isinstance(s, dict) and isinstance(s.get("text", ""), str) for s in sections
    )
