"""The languages of the worker and annotator screens.

A language is available when locale/<locale>/LC_MESSAGES/django.po exists (English, the source
language, always is): adding one is adding that file (docs/languages.md). Each campaign and
annotation job names its language; `language_page` renders a worker page in it, and the worker's
browser language replaces it only where the campaign or job allows that. Staff pages stay in
settings.LANGUAGE_CODE (nothing activates another language for them)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, wraps
from pathlib import Path
from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

SOURCE_LANGUAGE = "en"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def catalog_languages(locale_dir: Path = LOCALE_DIR) -> list[str]:
    """Language codes ("zh-hans", "ar") with a django.po catalog under `locale_dir`, sorted."""
    if not locale_dir.is_dir():
        return []
    return sorted(translation.to_language(path.parent.parent.name) for path in locale_dir.glob("*/LC_MESSAGES/django.po"))


@cache
def languages_available() -> list[str]:
    """English and every catalog, read once per process (settings.LANGUAGES is, too)."""
    return [SOURCE_LANGUAGE, *catalog_languages()]


# A catalog whose header carries this field is a stub (a few strings, e.g. to check a right-to-left
# layout): pages can be shown in it, but a campaign or job cannot be set to it in the admin, and the
# catalog check does not ask it to be complete.
STUB_FIELD = "X-Groundwork-Stub:"


def catalog_is_stub(language: str, locale_dir: Path = LOCALE_DIR) -> bool:
    po = locale_dir / translation.to_locale(language) / "LC_MESSAGES" / "django.po"
    return po.is_file() and STUB_FIELD in po.read_text(encoding="utf-8").split("\n\n", 1)[0]


@cache
def languages_complete() -> list[str]:
    """The languages a campaign or job may choose: English and every catalog that is not a stub."""
    return [language for language in languages_available() if not catalog_is_stub(language)]


def language_validate(value: str) -> None:
    """A campaign's or job's language must have a complete catalog (or be English)."""
    if value in languages_complete():
        return
    problem = "is only a stub catalog" if value in languages_available() else "has no translation catalog"
    raise ValidationError(
        "“%(value)s” %(problem)s; available: %(available)s (add locale/<language>/LC_MESSAGES/django.po to add one, docs/languages.md).",
        params={"value": value, "problem": problem, "available": ", ".join(languages_complete())},
        code="no_catalog",
    )


class HasLanguage(Protocol):
    language: str
    browser_language: bool


def language_choose(*, target: HasLanguage | None, request: HttpRequest) -> str:
    """The language of a worker page: the target's, or the browser's where the target allows it and
    a catalog exists for it (Accept-Language, best first)."""
    if target is None:
        return SOURCE_LANGUAGE
    chosen = target.language if target.language in languages_available() else SOURCE_LANGUAGE
    if target.browser_language:
        # Accept-Language alone (no language cookie: the campaign, not an earlier page, decides).
        for asked, _quality in parse_accept_lang_header(request.headers.get("Accept-Language", "")):
            if asked != "*" and (variant := _supported(asked)):
                return variant
    return chosen


def _supported(code: str) -> str | None:
    try:
        variant = translation.get_supported_language_variant(code)
    except LookupError:
        return None
    return variant if variant in languages_available() else None


TargetOf = Callable[..., "HasLanguage | None"]


def language_page(target_of: TargetOf) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A worker page rendered in its campaign's or job's language; `target_of` finds the campaign
    or job from the URL's arguments (as collect.framing's resolvers do)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def translated(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            target = target_of(**kwargs)
            language = language_choose(target=target, request=request)
            with translation.override(language):
                request.LANGUAGE_CODE = language
                response = view(request, *args, **kwargs)
            response.headers.setdefault("Content-Language", language)
            if target is not None and target.browser_language:
                response.headers["Vary"] = ", ".join(filter(None, [response.headers.get("Vary"), "Accept-Language"]))
            return response

        return translated

    return decorate
