"""The one error page every app answers with (templates/error.html): a title and a sentence saying
what went wrong and what to do, under the HTTP status that says it to machines."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

ERROR_TEMPLATE = "error.html"


def error_page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    """`title` and `message` are shown as given: translate them first where the page is a worker's."""
    return render(request, ERROR_TEMPLATE, {"title": title, "message": message}, status=status)
