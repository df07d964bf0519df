"""MTurk's frame for browser tests: a stand-in for MTurk's worker site, which shows a HIT's
ExternalQuestion URL in an iframe on another site, and a stand-in `externalSubmit` that records
what the HIT posts back.

The stand-in listens on 127.0.0.1 but is addressed as http://localhost:<port>, while the test
server is http://127.0.0.1:<port>: the two are different sites, so the frame is cross-site as on
MTurk (SameSite=Lax cookies are not sent into it, and Chromium's test profile keeps only
partitioned cookies there), and Chromium treats both as secure contexts (Secure cookies work over
plain http).

Use it by requesting the `mturk_site` fixture *before* the server fixture (`daphne_server` or
`browser`), so that the settings it names (the submit host and the frame ancestor) are in place when
the server process is forked:

    def test_it(mturk_site: MTurkSite, browser: Browser, daphne_server: str, ...) -> None:
        hit = mturk_site.open_hit(browser, f"{daphne_server}/join/{slug}/", worker_id="W1", assignment_id="A1")
        expect(hit.frame.get_by_test_id("waiting")).to_be_visible()
        ...
        assert mturk_site.submission("A1")["outcome"] == ["completed"]
"""

from __future__ import annotations

import html
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

if TYPE_CHECKING:  # playwright is imported only where a browser test runs
    from playwright.sync_api import Browser, Frame, Page

SUBMIT_PATH = "/mturk/externalSubmit"
HIT_PATH = "/hit"
PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"


@dataclass
class Hit:
    """One worker's HIT: the stand-in worker site's page and, inside it, the task's frame."""

    page: Page
    frame: Frame
    assignment_id: str
    worker_id: str
    script_errors: list[str] = field(default_factory=list)


@dataclass
class MTurkSite:
    origin: str  # http://localhost:<port>: the worker site, and the turkSubmitTo host
    submissions: list[dict[str, list[str]]] = field(default_factory=list)  # externalSubmit form bodies
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def task_url(self, join_url: str, *, worker_id: str, assignment_id: str, hit_id: str = "3HITSTANDIN0") -> str:
        """The ExternalQuestion URL with the parameters MTurk appends (no workerId in a preview)."""
        params = {"assignmentId": assignment_id, "hitId": hit_id, "turkSubmitTo": self.origin}
        if assignment_id != PREVIEW:
            params["workerId"] = worker_id
        return f"{join_url}{'&' if '?' in join_url else '?'}{urlencode(params)}"

    def hit_url(self, join_url: str, **task: str) -> str:
        """The worker site's page that frames the task."""
        return f"{self.origin}{HIT_PATH}?{urlencode({'src': self.task_url(join_url, **task)})}"

    def open_hit(self, browser: Browser, join_url: str, *, worker_id: str, assignment_id: str, hit_id: str = "3HITSTANDIN0") -> Hit:
        """A fresh browser profile opening the HIT on the worker site; returns once the frame exists."""
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        page.goto(self.hit_url(join_url, worker_id=worker_id, assignment_id=assignment_id, hit_id=hit_id))
        frame = page.locator("#hit").element_handle().content_frame()
        assert frame is not None
        return Hit(page=page, frame=frame, assignment_id=assignment_id, worker_id=worker_id, script_errors=errors)

    def submission(self, assignment_id: str, *, timeout: float = 20.0) -> dict[str, list[str]]:
        """The form the HIT posted to externalSubmit for this assignment (waits for it)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                found = [form for form in self.submissions if form.get("assignmentId") == [assignment_id]]
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise AssertionError(f"no externalSubmit for {assignment_id} within {timeout} s; got {self.submissions}")
            time.sleep(0.05)

    def submissions_for(self, assignment_id: str) -> list[dict[str, list[str]]]:
        with self._lock:
            return [form for form in self.submissions if form.get("assignmentId") == [assignment_id]]


def _frame_page(src: str) -> bytes:
    return (
        "<!doctype html><html><head><title>HIT (MTurk stand-in)</title></head><body>"
        "<h1>MTurk stand-in</h1>"
        f'<iframe id="hit" name="hit" src="{html.escape(src, quote=True)}" width="1300" height="900"></iframe>'
        "</body></html>"
    ).encode()


def serve() -> tuple[MTurkSite, ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    site = MTurkSite(origin=f"http://localhost:{server.server_address[1]}")

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            src = parse_qs(parts.query).get("src", [""])[0]
            if parts.path != HIT_PATH or not src:
                self._reply(404, b"not found")
                return
            self._reply(200, _frame_page(src))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            if urlsplit(self.path).path != SUBMIT_PATH:
                self._reply(404, b"not found")
                return
            with site._lock:
                site.submissions.append(parse_qs(body, keep_blank_values=True))
            self._reply(200, b'<!doctype html><p id="submitted">HIT submitted (MTurk stand-in)</p>')

        def log_message(self, *args: Any) -> None:
            pass

    server.RequestHandlerClass = Handler
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site, server


_running: MTurkSite | None = None  # the run's one stand-in site, started by the first test that asks


@pytest.fixture
def mturk_site(settings: Any) -> MTurkSite:
    """The stand-in worker site, named as MTurk's frame ancestor and submit host. One site serves
    the run (so the settings, and with them a live server, are the same for every test that asks);
    each test starts with no submissions."""
    global _running
    if _running is None:
        _running, _ = serve()
    with _running._lock:
        _running.submissions.clear()
    settings.MTURK_SUBMIT_HOSTS = [_running.origin]
    settings.MTURK_FRAME_ANCESTORS = [_running.origin]
    return _running
