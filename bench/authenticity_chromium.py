"""Precision and recall of the authenticity signals (docs/authenticity.md) on scripted workers in
real Chromium: Wizard of Wikipedia dialogues on a live daphne, each message written in the chat page
by a scripted worker (tests/browser/scripted_workers.py), its record made by the page's own
static/js/authenticity.js and carried by the room socket, the signals computed when the room ends
(the Celery task, eager without a broker). bench/authenticity_signals.py scores the same signals on
records built in Python.

    .venv/bin/python bench/authenticity_chromium.py [--dialogues 210] [--messages 2] [--seed 0]

Each dialogue's wizard is one kind in turn (30 dialogues each by default): a typist with
corrections, an input-method typist composing Chinese, a phone typist with autocorrect, word
suggestions and voice input, a paster of LLM-written replies from outside the page, a paster of
the knowledge sentence, a "fast typer" keying text at 40 characters a second, and one person with
two worker ids in one browser (two successive two-ids dialogues, one browser profile; that seat
takes whichever role it is given). The apprentice (the partner) is an honest typist, IME or phone
typist in turn. Typing is paced by Playwright's fake clock, which the page's record reads, so a
person's pace costs no real waiting. A throwaway var directory (SQLite, the knowledge index), the
browser tests' small Wikipedia (tests/browser/conftest.py), one daphne (`python -m
groundwork.serve`), Debian's chromium (tests/chromium.py's arguments).

Prints, per signal, the seats it flagged and its precision and recall against the cheat it is
meant to catch, then "any flag" against every cheat, the other signals that fired, the false flags
on honest seats, and the cheats their signal missed.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_START_S = 60


def setup(var_dir: Path) -> dict[str, str]:
    """Django on a fresh var directory: migrated, the knowledge imported and indexed as researchers
    do it. Returns the environment the server gets (the same database, index and secret)."""
    sys.path.insert(0, str(ROOT))
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(name, None)
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "groundwork.settings",
        "GROUNDWORK_VAR_DIR": str(var_dir),
        "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
        "GROUNDWORK_UNSIGNED_LINKS": "1",  # the scripted workers join by plain ?worker= links
        "GROUNDWORK_SENTENCE_VECTORS": "off",  # lexical panels, as the browser tests have them
    })
    server_env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # Playwright's sync API runs an event loop in this thread; the ORM calls between its calls are
    # plain synchronous ones (tests/chromium.py).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from tests.browser.conftest import ARTICLES

    articles = var_dir / "articles.jsonl"
    articles.write_text("\n".join(json.dumps({"title": t, "text": x}) for t, x in ARTICLES), encoding="utf-8")
    call_command("import_knowledge", "jsonl", str(articles), source="bench-wiki", verbosity=0)
    call_command("build_index", source="bench-wiki", verbosity=0)
    return server_env


def campaign_create(messages: int):
    from collect.models import Campaign, Persona
    from retrieval.models import KnowledgeSource

    campaign = Campaign.objects.create(
        slug="authenticity-bench", name="Authenticity bench", knowledge_source=KnowledgeSource.objects.get(slug="bench-wiki"),
        # `messages` each, then the chat ends by itself (turn limit) and the apprentice rates it.
        min_turns=messages, max_turns=messages, turn_limit=messages, max_per_worker=0,
        wait_timeout_seconds=120, disconnect_grace_seconds=120, instructions="Talk about the topic.",
    )
    Persona.objects.create(campaign=campaign, text="I play the guitar in a band at weekends.", topics=["Blues", "Jazz"])
    return campaign


def server_start(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with log.open("ab") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "groundwork.serve", "-b", "127.0.0.1", "-p", str(port), "groundwork.asgi:application"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_S
    while True:
        if server.poll() is not None:
            raise SystemExit(f"the server exited (rc {server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return server, url
        except OSError:
            pass
        if time.monotonic() > deadline:
            server.terminate()
            raise SystemExit(f"the server was not ready within {SERVER_START_S} s; see {log}")
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=int, default=210)
    parser.add_argument("--messages", type=int, default=2, help="messages each worker sends per dialogue")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.monotonic()
    var_dir = Path(tempfile.mkdtemp(prefix="gw-bench-"))
    server_env = setup(var_dir)
    campaign = campaign_create(args.messages)
    server, url = server_start(server_env, var_dir / "daphne.log")
    from playwright.sync_api import expect, sync_playwright

    from tests.browser.scripted_workers import KINDS, run_dialogues, score
    from tests.chromium import CHROMIUM, CHROMIUM_ARGS

    kinds = [KINDS[n % len(KINDS)] for n in range(args.dialogues)]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            expect.set_options(timeout=20_000)
            ran = time.monotonic()

            def progress(n: int, kind: str) -> None:
                if (n + 1) % 10 == 0 or n + 1 == len(kinds):
                    print(f"  {n + 1}/{len(kinds)} dialogues, {time.monotonic() - ran:.0f} s", file=sys.stderr, flush=True)

            run = run_dialogues(browser, url, campaign, kinds, seed=args.seed, prefix="b", progress=progress)
            dialogues_s = time.monotonic() - ran
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=15)
    print(f"{args.dialogues} dialogues of {args.messages} messages each in real Chromium, "
          f"{dialogues_s:.0f} s ({dialogues_s / args.dialogues:.1f} s a dialogue; {time.monotonic() - started:.0f} s in all)")
    print(score(run.truth).table())


if __name__ == "__main__":
    main()
