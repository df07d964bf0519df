"""Worker-facing text left out of the catalogs, where it can be seen from the source: words in a
worker template outside {% translate %}/{% blocktranslate %}, and sentences in an ES module outside
gettext(). A heuristic (docs/languages.md says what it cannot see): the staff templates are left
out, and so are data shown as is (campaign texts, messages, knowledge) since they reach the page
through variables."""

from __future__ import annotations

import re
from pathlib import Path

# Researchers' pages: they may stay English. Those of an app of its own lie in a `research/` folder.
STAFF_TEMPLATES = {
    "admin/staff_login.html", "staff/second_factor.html", "collect/home.html",
    "annotate/jobs.html", "annotate/report.html", "annotate/_chart.html", "annotate/_interval_chart.html",
}
STAFF_DIRS = ("research",)
STAFF_SCRIPTS = {"dashboard.js", "charts.js", "research-export.js"}
# Words that are the same in every language here: the product's name.
ALLOWED_WORDS = {"Groundwork"}

_COMMENT = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}|{#.*?#}", re.S)
_BLOCK = re.compile(r"{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}", re.S)
_TRANSLATE = re.compile(r"{%\s*trans(?:late)?\s.*?%}", re.S)
_INCLUDE_LITERAL = re.compile(r'{%\s*include\b[^%]*?\b\w+="([^"]*[A-Za-z]{2,}[^"]* [^"]*)"[^%]*%}')
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S)
_ATTRIBUTE = re.compile(r'\b(placeholder|title|aria-label|alt)="([^"]*)"')
_TAG_OR_VARIABLE = re.compile(r"{%.*?%}|{{.*?}}", re.S)
_CODE = re.compile(r"<(kbd|code)\b[^>]*>.*?</\1>", re.S)
# Blocks that hold class names (body_class, page_class, room_classes …), not text.
_CLASS_BLOCK = re.compile(r"{%\s*block\s+\w*class\w*\s*%}.*?{%\s*endblock\s*%}", re.S)
_HTML_TAG = re.compile(r"<[^>]+>")
_WORD = re.compile(r"[A-Za-z]{2,}")


def worker_templates(templates_dir: Path) -> list[Path]:
    paths = []
    for path in sorted(templates_dir.rglob("*.html")):
        name = path.relative_to(templates_dir).as_posix()
        if name not in STAFF_TEMPLATES and not set(Path(name).parts[:-1]) & set(STAFF_DIRS):
            paths.append(path)
    return paths


def _words(text: str) -> list[str]:
    return [word for word in _WORD.findall(text) if word not in ALLOWED_WORDS]


def _line_of(source: str, needle: str) -> int:
    at = source.find(needle)
    return source.count("\n", 0, at) + 1 if at >= 0 else 0


def template_unmarked(path: Path) -> list[str]:
    """Each unmarked piece of text in a worker template, as "file:line: text"."""
    source = path.read_text(encoding="utf-8")
    text = _COMMENT.sub("", source)
    found = [literal for literal in _INCLUDE_LITERAL.findall(text)]
    text = _TRANSLATE.sub("", _BLOCK.sub("", text))
    text = _CLASS_BLOCK.sub("", _SCRIPT.sub("", text))
    for _name, value in _ATTRIBUTE.findall(text):
        if _words(_TAG_OR_VARIABLE.sub("", value)):
            found.append(value)
    text = _ATTRIBUTE.sub("", text)
    text = _HTML_TAG.sub("\n", _CODE.sub("", _TAG_OR_VARIABLE.sub("\n", text)))
    found += [line.strip() for line in text.split("\n") if _words(line) and not _CLASS_NAMES.match(line.strip())]
    return [f"{path}:{_line_of(source, piece)}: {piece}" for piece in found]


_JS_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/"  # comments
    r"|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`",  # string literals
    re.S,
)
_GETTEXT_CALL = re.compile(r"\b(?:gettext|ngettext|pgettext|gettext_noop)\s*\(")
# Not prose: class lists ("button button-primary", every word with a hyphen or underscore), selectors, URLs.
_CODE_LIKE = re.compile(r"^\s*(?:[a-z0-9]*[-_][a-z0-9_-]*\s*)+$|^\.|[\[\]#=/{}<>]")
# Class names in a template ("page-narrow", "role-"), not words.
_CLASS_NAMES = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]*)+$")
# Literals that are class names, test ids or selectors by where they stand.
_NOT_TEXT_CONTEXT = re.compile(
    r"(?:\bclass|className|testid|\"data-testid\"|\bid)\s*[:=]\s*$"
    r"|(?:querySelector(?:All)?|closest|getElementById|matches|toggle|add|remove|getAttribute|setAttribute)\(\s*$"
)
KEY_NAMES = {"Enter", "Escape", "Tab", "ArrowDown", "ArrowUp", "ArrowLeft", "ArrowRight", "Space", "Backspace"}


def _call_spans(source: str) -> list[tuple[int, int]]:
    """Where the gettext-family calls' arguments lie (balanced parentheses, strings skipped)."""
    spans = []
    for call in _GETTEXT_CALL.finditer(source):
        depth, at = 1, call.end()
        while depth and at < len(source):
            token = _JS_TOKEN.match(source, at)
            if token:
                at = token.end()
                continue
            depth += {"(": 1, ")": -1}.get(source[at], 0)
            at += 1
        spans.append((call.end(), at))
    return spans


def _is_prose(literal: str) -> bool:
    templated = literal.startswith("`") and "${" in literal
    body = re.sub(r"\$\{[^}]*\}", " ", literal[1:-1]).strip()
    if body in KEY_NAMES or not _WORD.search(body):
        return False
    if templated:
        # Text around values ("${n} ticked"), unless it reads as a key, path or selector.
        if re.search(r"[A-Za-z]{2,}[,;:]?\s+[A-Za-z]{2,}", body):
            return True  # a phrase
        return not re.search(r"[\[\]#=/{}<>:.]", body) and not re.fullmatch(r"[a-z0-9]*[-_][a-z0-9_-]*", body)
    if " " not in body:
        # One word: a label ("Send") or a status ("sending…"), not an identifier, selector or verb.
        word = body.rstrip(".…!?")
        return word.isalpha() and ((word[0].isupper() and word[1:].islower()) or word != body)
    return not _CODE_LIKE.search(body)


def script_unmarked(path: Path) -> list[str]:
    """Each sentence-like string literal of an ES module outside a gettext call."""
    source = path.read_text(encoding="utf-8")
    spans = _call_spans(source)
    found = []
    for token in _JS_TOKEN.finditer(source):
        literal = token.group(0)
        if literal.startswith("/") or any(start <= token.start() < end for start, end in spans):
            continue
        if _NOT_TEXT_CONTEXT.search(source[max(0, token.start() - 40) : token.start()]):
            continue
        if _is_prose(literal):
            found.append(f"{path}:{source.count(chr(10), 0, token.start()) + 1}: {literal}")
    return found


def unmarked_text(*, templates_dirs: list[Path], scripts_dirs: list[Path]) -> list[str]:
    """Every worker template under `templates_dirs` and ES module directly in `scripts_dirs`
    (the project's and each app's: a task type's pages are worker pages too)."""
    found = [piece for folder in templates_dirs for path in worker_templates(folder) for piece in template_unmarked(path)]
    for folder in scripts_dirs:
        for path in sorted(folder.glob("*.js")):
            if path.name not in STAFF_SCRIPTS:
                found += script_unmarked(path)
    return found
