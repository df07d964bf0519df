"""The JavaScript catalog of the worker screens' ES modules (static/js/i18n.js reads it): Django's
JavaScriptCatalog for the language in the URL, which base.html names after the page's own."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.i18n import JavaScriptCatalog

from groundwork.languages import SOURCE_LANGUAGE, languages_available

_catalog = JavaScriptCatalog.as_view(domain="djangojs")


def js_catalog(request: HttpRequest, language: str) -> HttpResponse:
    # A code without a catalog gets the English one (the strings as written), not a 404 that
    # would leave the page without its gettext.
    if language not in languages_available():
        language = SOURCE_LANGUAGE
    with translation.override(language):
        response = _catalog(request)
    response["Cache-Control"] = "public, max-age=300"
    return response
