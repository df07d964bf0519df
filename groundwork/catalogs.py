"""The translation catalogs' check (docs/languages.md): what is wrong with a .po file.

A complete catalog translates every entry, has no fuzzy entry, and keeps each entry's
placeholders ("%(name)s") and markup (<strong>, <a …>) intact, since a translation that drops or
renames a placeholder breaks the page that fills it in. A stub (groundwork.languages.STUB_FIELD)
is only held to the last two rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from groundwork.languages import STUB_FIELD

_KEYWORD = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?) "(.*)"$')
_CONTINUED = re.compile(r'^"(.*)"$')
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
TAG = re.compile(r"</?([a-z]+)\b")


@dataclass
class Entry:
    msgid: str
    context: str | None = None
    plural: str | None = None
    translations: list[str] = field(default_factory=list)
    fuzzy: bool = False
    line: int = 0

    @property
    def label(self) -> str:
        where = f"[{self.context}] " if self.context else ""
        return f"line {self.line}: {where}{self.msgid[:80]!r}"


@dataclass
class Catalog:
    path: Path
    header: str
    entries: list[Entry]

    @property
    def is_stub(self) -> bool:
        return STUB_FIELD in self.header


def catalog_read(path: Path) -> Catalog:
    """The entries of a .po file (obsolete "#~" entries are left out)."""
    entries: list[Entry] = []
    header = ""
    line_no = 0
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        parts: dict[str, str] = {}
        current = None
        fuzzy = False
        first = line_no + 1
        for line in block.split("\n"):
            line_no += 1
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            if match := _KEYWORD.match(line):
                current = match.group(1)
                parts[current] = match.group(2)
            elif (match := _CONTINUED.match(line)) and current:
                parts[current] += match.group(1)
        line_no += 1  # the blank line between blocks
        if "msgid" not in parts:
            continue
        if parts["msgid"] == "":
            header = parts.get("msgstr", "")
            continue
        translations = [value for key, value in sorted(parts.items()) if key.startswith("msgstr")]
        entries.append(Entry(parts["msgid"], parts.get("msgctxt"), parts.get("msgid_plural"), translations, fuzzy, first))
    return Catalog(path, header, entries)


def entry_problems(entry: Entry, *, complete: bool) -> list[str]:
    if entry.fuzzy:
        return [f"{entry.label} is fuzzy"]
    if not entry.translations or not all(entry.translations):
        return [f"{entry.label} is not translated"] if complete else []
    problems = []
    source_places = PLACEHOLDER.findall(entry.msgid + (entry.plural or ""))
    source_tags = sorted(TAG.findall(entry.msgid))
    for translation in entry.translations:
        places = PLACEHOLDER.findall(translation)
        # A plural form may leave the number out ("one message left"); nothing may be renamed or added.
        wrong = not set(places) <= set(source_places) if entry.plural else sorted(places) != sorted(source_places)
        if wrong:
            problems.append(f"{entry.label}: placeholders {sorted(set(source_places))} became {places}")
        if sorted(TAG.findall(translation)) != source_tags:
            problems.append(f"{entry.label}: markup {source_tags} became {sorted(TAG.findall(translation))}")
    return sorted(set(problems))


def catalog_problems(path: Path) -> list[str]:
    """What is wrong with one .po file ([] when nothing)."""
    catalog = catalog_read(path)
    return [f"{path}: {problem}" for entry in catalog.entries for problem in entry_problems(entry, complete=not catalog.is_stub)]


def catalogs_problems(locale_dir: Path) -> list[str]:
    return [problem for path in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")) for problem in catalog_problems(path)]
