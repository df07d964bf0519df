"""Scripted workers for the authenticity signals (docs/authenticity.md) in real Chromium: each kind
writes its messages in a real Wizard of Wikipedia chat page the way that worker would, the page's
own static/js/authenticity.js keeps the record, the room socket carries it, the server checks and
stores it, and the room's end computes the signals (the Celery task, eager here).

Typing is paced by Playwright's fake clock, which the record's `performance.now()` reads: one key,
then the clock moved on by the worker's gap (`page.clock.fast_forward`), so a person's pace costs
no real waiting. The clock is installed before the first page loads and paused once the chat page
is open: only the script moves it, so a 25 ms gap is 25 ms to the page however busy the machine is.

Kinds (`KINDS`): three honest ones (a typist with corrections, an input-method typist composing
Chinese, a phone typist with autocorrect, word suggestions and voice input) and four cheats (a
paster of LLM-written replies from outside the page, a paster of the knowledge sentence, a "fast
typer" keying text at 40 characters a second, one person with two worker ids in one browser).
`run_dialogues` runs one dialogue per kind given, the scripted kind as the wizard and an honest
partner (typist, ime, phone in turn) as the apprentice; `score` tallies the stored flags per seat.
Used by tests/browser/test_authenticity_workers.py and bench/authenticity_chromium.py.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.test_wow_browser import wait_for_knowledge

HONEST = ("typist", "ime", "phone")
# The signal meant to catch each cheat.
CHEATS = {"paste_outside": "outside_paster", "knowledge_copy": "knowledge_paster", "typing_speed": "fast_typer",
          "shared_browser": "two_ids"}
KINDS = (*HONEST, "outside_paster", "knowledge_paster", "fast_typer", "two_ids")
SIGNALS_WAIT_S = 30.0

# What a language model answers (another tab, another app): found nowhere on the page.
LLM_REPLIES = [
    "Absolutely! The blues is a fascinating genre that emerged from African-American communities, blending spirituals and work songs.",
    "Great question! Jazz is renowned for its improvisation, syncopated rhythms and rich harmonic language, which continue to inspire musicians today.",
    "Certainly! The guitar has played a pivotal role in shaping modern popular music, from early acoustic traditions to electrified rock.",
    "That's a wonderful point! Many legendary musicians drew inspiration from these roots, creating a lasting legacy that resonates worldwide.",
    "Indeed, the evolution of this music reflects broader cultural shifts, and its influence can be heard in countless contemporary genres.",
    "It's worth noting that this style is deeply intertwined with history, offering a powerful lens on resilience, creativity and community.",
    "Fascinating topic! Scholars often highlight how call-and-response patterns and expressive vocals define the emotional depth of the genre.",
    "You're absolutely right! Its distinctive chord progressions and heartfelt lyrics have captivated audiences for generations.",
]
# Input-method phrases: the candidate picked → the pinyin keyed for it.
PINYIN = {"我觉得": "wojuede", "和": "he", "很重要": "henzhongyao", "我很喜欢": "wohenxihuan", "音乐": "yinyue",
          "你呢": "nine", "你知道": "nizhidao", "是从哪里来的": "shicongnalilaide", "谁": "shui", "弹得最好": "tandezuihao",
          "真的吗": "zhendema"}
VOICE = ["I listen to it on the bus every morning", "my dad used to play records like that at home",
         "we saw a band like that last summer", "I should really learn to play something"]
STOP = set("about after also around because been before being from have into just known many more most much often "
           "other over such than that their them then there these they this those through typically under until "
           "used very what when where which while with would".split())
KEYBOARD_NEIGHBOURS = dict(zip("abcdefghijklmnopqrstuvwxyz", "svxsrghjoklknmpowtayiceztx"))  # a key beside it


@dataclass
class Turn:
    """One message to write. `words`: content words of the knowledge sentence the wizard checked
    for it (none for the apprentice, or "no sentence")."""

    page: Page
    rng: random.Random
    role: str
    topic: str
    first: bool  # the seat's first message
    words: list[str] = field(default_factory=list)
    checked: Any = None  # the sentence's element in the panel (a Locator)


# --- typing, as the page sees it -----------------------------------------------------------------

def wait(page: Page, ms: float) -> None:
    """`ms` of the page's time pass (its clock is paused: nothing else moves it)."""
    page.clock.fast_forward(max(1, round(ms)))


def keys(page: Page, text: str, rng: random.Random, *, gap: tuple[float, float], typos: float = 0.0,
         pauses: float = 0.0) -> None:
    """`text` key by key, `gap` ms apart (uniform); a letter mistyped with probability `typos`
    (a neighbouring key, then Backspace); a pause of 2.5-6 s at a space with probability `pauses`."""
    for ch in text:
        if ch.isalpha() and ch.lower() in KEYBOARD_NEIGHBOURS and rng.random() < typos:
            page.keyboard.type(KEYBOARD_NEIGHBOURS[ch.lower()])
            wait(page, rng.uniform(250, 600))  # seen, then mended
            page.keyboard.press("Backspace")
            wait(page, rng.uniform(*gap))
        page.keyboard.type(ch)
        wait(page, rng.uniform(2500, 6000) if ch == " " and rng.random() < pauses else rng.uniform(*gap))


def box(page: Page) -> Any:
    return page.get_by_test_id("message-input")


def focus(page: Page) -> None:
    box(page).click()


def copy_from_page(page: Page, element: Any) -> None:
    """`element`'s text selected and copied with Ctrl+C."""
    element.evaluate("(el) => { const r = document.createRange(); r.selectNodeContents(el);"
                     " getSelection().removeAllRanges(); getSelection().addRange(r); }")
    page.keyboard.press("ControlOrMeta+C")


def copy_from_outside(page: Page, text: str) -> None:
    """`text` put on the clipboard by another application."""
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)


def paste(page: Page) -> None:
    """The clipboard pasted into the message box with Ctrl+V (the context may read and write the clipboard)."""
    before = box(page).input_value()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    focus(page)
    page.keyboard.press("ControlOrMeta+V")
    expect(box(page)).to_have_value(before + copied)


def ime(page: Page, phrase: str, rng: random.Random) -> None:
    """`phrase` composed with a pinyin input method: each key updates the composition (Chrome's
    IME events through the DevTools protocol), then the candidate is picked."""
    cdp = getattr(page, "gw_cdp", None)
    if cdp is None:
        cdp = page.gw_cdp = page.context.new_cdp_session(page)  # type: ignore[attr-defined]
    keyed = PINYIN[phrase]
    for n in range(1, len(keyed) + 1):
        cdp.send("Input.imeSetComposition", {"text": keyed[:n], "selectionStart": n, "selectionEnd": n})
        wait(page, rng.uniform(120, 300))
    wait(page, rng.uniform(300, 900))  # reading the candidates
    cdp.send("Input.insertText", {"text": phrase})
    wait(page, rng.uniform(150, 400))


def replace_last_word(page: Page, wrong: str, right: str) -> None:
    """A phone's autocorrect or word suggestion: the word just keyed replaced at once."""
    end = len(box(page).input_value())
    box(page).evaluate("(el, [s, e]) => el.setSelectionRange(s, e)", [end - len(wrong), end])
    page.keyboard.insert_text(right)


# --- what honest workers say ---------------------------------------------------------------------

def content_words(sentence: str) -> list[str]:
    """The sentence's longer words, in order: what a worker who read it picks up."""
    seen: list[str] = []
    for word in re.findall(r"[A-Za-z]+", sentence):
        if len(word) >= 5 and word.lower() not in STOP and word.lower() not in seen:
            seen.append(word.lower())
    return seen


def own_text(turn: Turn) -> str:
    """A message in the worker's own words: a question for the apprentice, a reply using words of
    the checked sentence (or none) for the wizard."""
    rng, topic = turn.rng, turn.topic.lower()
    if turn.role == "apprentice":
        return rng.choice([
            f"I love {topic}, where did it come from?", f"What instruments do people play in {topic}?",
            f"Who are the famous {topic} players?", "Oh really, I did not know that. Is it still popular?",
            "That sounds great. Do you play anything yourself?", f"Is {topic} hard to learn for a beginner?",
        ])
    if turn.words:
        a, b = turn.words[0], turn.words[min(1, len(turn.words) - 1)]
        return rng.choice([
            f"From what I read, {a} and {b} are a big part of it.", f"I think it has a lot to do with {a}, and {b} too.",
            f"Yes, it is mostly about {a}, also {b} I guess.", f"Well it goes back to {a}, and then {b} came in.",
        ])
    return rng.choice([
        "I have always liked it, my uncle used to play it at home.", "Honestly I mostly know it from old records.",
        "I think it still shows up in a lot of songs today.", "Not sure, but it sounds like a good thing to try.",
    ])


# --- the kinds: each writes one message into the composer ----------------------------------------

def typist(turn: Turn) -> None:
    """Key by key at 120-300 ms a key, a few typos mended, sometimes a pause to think."""
    focus(turn.page)
    keys(turn.page, own_text(turn), turn.rng, gap=(120, 300), typos=0.04, pauses=0.08)


def ime_typist(turn: Turn) -> None:
    """Chinese through a pinyin input method, the topic's English words keyed: composition is typing."""
    page, rng = turn.page, turn.rng
    focus(page)
    if turn.role == "apprentice":
        parts = ["你知道", f" {turn.topic.lower()} ", "是从哪里来的", "?"] if turn.first else ["真的吗", "? ", "谁", f" {turn.topic.lower()} ", "弹得最好", "?"]
    elif turn.words:
        parts = ["我觉得", f" {turn.words[0]} ", "和", f" {turn.words[min(1, len(turn.words) - 1)]} ", "很重要", "."]
    else:
        parts = ["我很喜欢", f" {turn.topic.lower()} ", "音乐", ", ", "你呢", "?"]
    for part in parts:
        if part in PINYIN:
            ime(page, part, rng)
        else:
            keys(page, part, rng, gap=(150, 350), typos=0.03)


def phone(turn: Turn) -> None:
    """Thumbs at 180-450 ms a key; misspelt words fixed by autocorrect, some words finished by a
    suggestion, and a phrase said to voice input: insertions, never pastes."""
    page, rng = turn.page, turn.rng
    focus(page)
    text = own_text(turn).rstrip(".?!")
    for i, word in enumerate(text.split(" ")):
        if i:
            keys(page, " ", rng, gap=(180, 450))
        roll = rng.random()
        if len(word) >= 5 and word.isalpha() and roll < 0.25:  # two letters swapped, autocorrected
            wrong = word[:2] + word[3] + word[2] + word[4:]
            keys(page, wrong, rng, gap=(180, 450))
            replace_last_word(page, wrong, word)
        elif len(word) >= 6 and word.isalpha() and roll < 0.5:  # a suggestion taken after three letters
            keys(page, word[:3], rng, gap=(180, 450))
            wait(page, rng.uniform(400, 900))
            replace_last_word(page, word[:3], word)
        else:
            keys(page, word, rng, gap=(180, 450))
        wait(page, rng.uniform(0, 400))
    if turn.first:
        wait(page, rng.uniform(1500, 3000))
        page.keyboard.insert_text(", " + rng.choice(VOICE))
    keys(page, "?" if turn.role == "apprentice" else ".", rng, gap=(180, 450))


def outside_paster(turn: Turn) -> None:
    """An LLM's reply from another tab, through the clipboard; sometimes a word keyed before it."""
    page, rng = turn.page, turn.rng
    focus(page)
    wait(page, rng.uniform(5000, 20000))  # away, asking the model
    if rng.random() < 0.3:
        keys(page, "Hmm, ", rng, gap=(120, 300))
    copy_from_outside(page, rng.choice(LLM_REPLIES))
    paste(page)


def knowledge_paster(turn: Turn) -> None:
    """The checked knowledge sentence, selected in the panel, copied and pasted; sometimes after a
    few typed words."""
    page, rng = turn.page, turn.rng
    assert turn.checked is not None, "a knowledge paster is a wizard who checked a sentence"
    focus(page)
    if rng.random() < 0.5:
        keys(page, rng.choice(["Oh nice. ", "Well, ", "Yes! "]), rng, gap=(120, 300))
    copy_from_page(page, turn.checked.locator(".sentence-text"))
    wait(page, rng.uniform(300, 900))
    paste(page)


def fast_typer(turn: Turn) -> None:
    """A script keying text at 40 characters a second (25 ms a key), 40 characters or more."""
    text = own_text(turn)
    while len(text) < 40:
        text += " " + own_text(turn)
    focus(turn.page)
    keys(turn.page, text, turn.rng, gap=(25, 25))


WRITERS: dict[str, Callable[[Turn], None]] = {
    "typist": typist, "ime": ime_typist, "phone": phone, "outside_paster": outside_paster,
    "knowledge_paster": knowledge_paster, "fast_typer": fast_typer, "two_ids": typist,  # two ids, typing honestly
}


# --- dialogues -----------------------------------------------------------------------------------

@dataclass
class Run:
    truth: dict[int, str] = field(default_factory=dict)  # seat (assignment id) → kind
    rooms: list[Any] = field(default_factory=list)  # room ids, in order


class Profiles:
    """Browser profiles under the fake clock, one page each. A worker's profile goes back to the
    pool with its cookies cleared (the next worker in it gets a gw_browser and a session of their
    own: another browser, to the server) and its HTTP cache kept, which spares reloading the static
    files for every worker."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.spare: list[Page] = []
        self.opened: list[BrowserContext] = []

    def fresh(self) -> Page:
        if self.spare:
            return self.spare.pop()
        context = self.browser.new_context(viewport={"width": 1400, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        context.clock.install()
        self.opened.append(context)
        page = context.new_page()
        page.gw_errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda error: page.gw_errors.append(str(error)))  # type: ignore[attr-defined]
        return page

    def done(self, page: Page) -> None:
        page.goto("about:blank")  # its sockets closed
        page.context.clear_cookies()
        self.spare.append(page)

    def close(self) -> None:
        for context in self.opened:
            context.close()
        self.spare, self.opened = [], []


def join(page: Page, base_url: str, campaign: Any, worker: str) -> None:
    page.goto(f"{base_url}/join/{campaign.slug}/?worker={worker}")


def dialogue(page_a: Page, page_b: Page, base_url: str, campaign: Any, *, kind: str, partner: str, tag: str,
             rng: random.Random) -> dict[int, str]:
    """One dialogue: `page_a`'s worker (`tag`-a, joining first) of `kind`, `page_b`'s (`tag`-b) an
    honest `partner`, each sending the campaign's `turn_limit` messages (the chat then ends by
    itself, and the apprentice rates it). The kind is the wizard's (both browsers are alike until
    the server gives out the roles), except for two_ids, whose seat is whichever role page_a got.
    Returns {seat: kind} once the room's signals are stored."""
    from collect.models import Assignment, SignalsRun

    join(page_a, base_url, campaign, f"{tag}-a")
    expect(page_a.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    join(page_b, base_url, campaign, f"{tag}-b")
    for page in (page_a, page_b):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
        expect(page.locator("#room")).to_have_attribute("data-status", "choosing_topic")
        page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)  # Python's pause_at takes seconds
    pages = {page.locator("#room").get_attribute("data-role"): page for page in (page_a, page_b)}
    if kind == "two_ids":
        kinds = {role: kind if page is page_a else partner for role, page in pages.items()}
    else:
        kinds = {"wizard": kind, "apprentice": partner}
    room = Assignment.objects.select_related("room").get(campaign=campaign, worker__external_id=f"{tag}-a").room
    seats = {a.role: a.pk for a in Assignment.objects.filter(room=room)}

    first = pages[room.first_speaker]
    options = first.get_by_test_id("topic-option")
    expect(options.first).to_be_visible()
    topic = rng.choice(options.all_inner_texts()).strip()
    options.filter(has_text=topic).first.click()
    for page in pages.values():
        expect(page.get_by_test_id("message-input")).to_be_visible()

    order = [room.first_speaker, "apprentice" if room.first_speaker == "wizard" else "wizard"]
    for seq in range(1, 2 * campaign.turn_limit + 1):
        role = order[(seq - 1) % 2]
        page = pages[role]
        expect(page.get_by_test_id("send-button")).to_be_enabled()
        turn = Turn(page=page, rng=rng, role=role, topic=topic, first=seq <= 2)
        wait(page, rng.uniform(2000, 8000))  # reading the partner's message
        if role == "wizard":
            wait_for_knowledge(page, after_seq=seq - 1)
            if turn.first or kinds[role] == "knowledge_paster":
                items = page.get_by_test_id("knowledge-sentence").filter(visible=True)
                item = items.nth(rng.randrange(min(3, items.count())))
                item.click()
                turn.checked = item
                turn.words = content_words(item.locator(".sentence-text").inner_text())
            else:
                page.get_by_test_id("no-sentence").click()
        WRITERS[kinds[role]](turn)
        wait(page, rng.uniform(500, 2500))  # read over
        page.get_by_test_id("send-button").click()
        expect(page.locator(f'[data-testid="message"][data-seq="{seq}"]')).to_have_attribute("data-state", "sent")

    rater = pages["apprentice"]  # WoW's rating form is the apprentice's
    rater.locator('[data-testid="rating-option"][data-value="4"]').click()
    rater.get_by_test_id("rating-submit").click()
    deadline = time.monotonic() + SIGNALS_WAIT_S
    while not SignalsRun.objects.filter(room=room).exists():  # the room ended: its signals are computed
        if time.monotonic() > deadline:
            raise AssertionError(f"room {room.pk}: no signals {SIGNALS_WAIT_S:g} s after the rating")
        time.sleep(0.05)
    for page in pages.values():
        expect(page).to_have_url(re.compile(r"/done/$"))
    errors = [e for page in pages.values() for e in page.gw_errors]  # type: ignore[attr-defined]
    assert not errors, errors
    return {seats[role]: kinds[role] for role in seats}


def run_dialogues(browser: Browser, base_url: str, campaign: Any, kinds: list[str] | tuple[str, ...], *,
                  seed: int = 0, prefix: str = "sw", progress: Callable[[int, str], None] | None = None) -> Run:
    """One dialogue per entry of `kinds`, in order, the partner honest (typist, ime, phone in
    turn); `progress(n, kind)` is told of each one done. Two successive `two_ids` entries (others
    may come between) are one person: the same browser profile, cookies and all, two worker ids,
    one dialogue after the other (a browser cannot be in two chats at once: the entry refuses it)."""
    from collect.models import Room

    rng = random.Random(seed)
    run = Run()
    profiles = Profiles(browser)
    person: Page | None = None  # a two-ids person's browser, between their two ids
    try:
        for n, kind in enumerate(kinds):
            second_id = kind == "two_ids" and person is not None
            page_a, person = (person, None) if second_id and person is not None else (profiles.fresh(), person)
            page_b = profiles.fresh()
            seats = dialogue(page_a, page_b, base_url, campaign, kind=kind, partner=HONEST[n % len(HONEST)],
                             tag=f"{prefix}{n}", rng=rng)
            room_id = Room.objects.filter(members__pk=next(iter(seats))).values_list("pk", flat=True).get()
            run.truth.update(seats)
            run.rooms.append(room_id)
            profiles.done(page_b)
            if kind == "two_ids" and not second_id:
                person = page_a  # kept, cookies and all, for their second id
            else:
                profiles.done(page_a)
            if progress is not None:
                progress(n, kind)
    finally:
        profiles.close()
    return run


# --- the score -----------------------------------------------------------------------------------

@dataclass
class Score:
    truth: dict[int, str]
    flagged: dict[str, set[int]]  # signal → seats it flagged

    @property
    def any_flag(self) -> set[int]:
        return set().union(*self.flagged.values()) if self.flagged else set()

    def honest_flagged(self) -> dict[int, list[str]]:
        """Honest seats with a flag: seat → its signals."""
        return {s: sorted(k for k, seats in self.flagged.items() if s in seats) for s in self.any_flag if self.truth[s] in HONEST}

    def missed(self) -> dict[int, str]:
        """Cheat seats the signal meant for their kind did not flag: seat → kind."""
        meant = {kind: signal for signal, kind in CHEATS.items()}
        return {s: k for s, k in self.truth.items() if k in meant and s not in self.flagged.get(meant[k], set())}

    def table(self) -> str:
        """As bench/authenticity_signals.py prints it: per signal, the seats it flagged, its
        precision and its recall against the cheat it is meant to catch; then any flag."""
        population = Counter(self.truth.values())
        lines = [f"{len(set(self.truth))} seats: " + ", ".join(f"{k} {population[k]}" for k in KINDS)
                 + " (apprentices and two-ids partners: typist, ime, phone in turn)",
                 f"{'signal':<16} {'flagged':>7} {'precision':>9} {'recall':>7}  target"]
        for signal, target in CHEATS.items():
            hits = self.flagged.get(signal, set())
            right = sum(1 for s in hits if self.truth[s] == target)
            precision = f"{right / len(hits):.3f}" if hits else "n/a"
            recall = f"{right / population[target]:.3f}" if population[target] else "n/a"
            lines.append(f"{signal:<16} {len(hits):>7} {precision:>9} {recall:>7}  {target}")
        every = self.any_flag
        cheats = {s for s, k in self.truth.items() if k not in HONEST}
        right = len(every & cheats)
        precision = f"{right / len(every):.3f}" if every else "n/a"
        recall = f"{right / len(cheats):.3f}" if cheats else "n/a"
        lines.append(f"{'any flag':<16} {len(every):>7} {precision:>9} {recall:>7}  every cheat")
        others = {k: Counter(self.truth[s] for s in seats) for k, seats in sorted(self.flagged.items()) if k not in CHEATS}
        lines.append("other signals: " + ("; ".join(f"{k} on {', '.join(f'{w} {n}' for w, n in c.items())}" for k, c in others.items()) or "none"))
        honest = sum(population[k] for k in HONEST)
        wrong = Counter(self.truth[s] for s in self.honest_flagged())
        lines.append(f"false flags on honest typists (typist, IME, phone): {sum(wrong.values())} of {honest}"
                     + (f" ({', '.join(f'{k} {n}' for k, n in wrong.items())})" if wrong else ""))
        missed = Counter(self.missed().values())
        lines.append("cheats their signal missed: " + (", ".join(f"{k} {n}" for k, n in missed.items()) or "none"))
        return "\n".join(lines)


def score(truth: dict[int, str]) -> Score:
    """The flags stored for these seats, by signal."""
    from collect.models_authenticity import AuthenticityFlag

    flagged: dict[str, set[int]] = defaultdict(set)
    for seat, kind in AuthenticityFlag.objects.filter(assignment_id__in=list(truth)).values_list("assignment_id", "kind"):
        flagged[kind].add(seat)
    return Score(truth=dict(truth), flagged=dict(flagged))
