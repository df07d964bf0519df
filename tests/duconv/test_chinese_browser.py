"""A Chinese DuConv dialogue on `duconv-zh-demo` in two real browsers, typed the way Chinese workers
type: through an input method. The Enter that confirms a candidate (a real composition, through the
DevTools protocol's Input.imeSetComposition) must not send the message, nor the keyCode-229 keydown
some browsers send after the composition ended. The counter and the limit count characters as the
server does (an emoji is one). The agent's panel marks the triples the chat mentioned, matched as
the server matches topics (any middle dot in a name). Every screen, from the join link to the finish
page, is in Chinese; the export, plain and segmented, reads back with `import_dataset duconv` into
the same bytes."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from collect.tasktypes.duconv.demo import duconv_zh_demo_ensure
from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.duconv.models import DuConvSession
from tests.browser.conftest import browser, daphne_server, wow_campaign, wow_knowledge  # noqa: F401 (fixtures)
from tests.browser.test_chinese_duconv_pages import GRAPH
from tests.browser.test_chinese_worker_pages import assert_chinese
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)
from tests.duconv.test_duconv_browser import open_pair, open_worker, send, use

pytestmark = [pytest.mark.backends, pytest.mark.browser, pytest.mark.usefixtures("compiled_catalogs")]

A, B = "盗梦空间", "克里斯托弗·诺兰"
LIMIT = 20


@pytest.fixture
def zh_campaign(transactional_db, settings) -> Campaign:
    settings.MESSAGE_MAX_CHARS = LIMIT  # before the server forks: the page and the socket use it
    campaign = duconv_zh_demo_ensure()
    campaign.protocol_config = {"goals": [{"goal": [["START", A, B], [A, "导演", B]]}]}
    campaign.wait_timeout_seconds = campaign.disconnect_grace_seconds = 120
    campaign.save()
    return campaign


def compose(cdp: Any, pinyin: str, candidate: str) -> None:
    """An input method's composition: the pinyin typed, then the candidate shown, still composing."""
    for text in (pinyin, candidate):
        cdp.send("Input.imeSetComposition", {"text": text, "selectionStart": len(text), "selectionEnd": len(text)})


def enter_key(cdp: Any, key_code: int = 13) -> None:
    for kind in ("rawKeyDown", "keyUp"):
        cdp.send("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                            "windowsVirtualKeyCode": key_code, "nativeVirtualKeyCode": key_code})


def triple(agent: Page, prop: str, entity: str = A) -> Any:
    return agent.locator(f'[data-testid="entity-group"][data-entity="{entity}"] [data-testid="triple"]', has_text=prop).first


def open_pair_in_chinese(browser: Browser, base_url: str, campaign: Campaign) -> tuple[Page, Page]:  # noqa: F811
    """Two workers joined and paired, with the screens before the room checked: a refused join link,
    and the first worker's waiting page. (The agent's page, the user's page.)"""
    refused = open_worker(browser, base_url, campaign, "")
    expect(refused.locator("h1")).not_to_be_empty()
    assert_chinese(refused, selectors=GRAPH)
    refused.context.close()
    return open_pair(browser, base_url, campaign, waiting=_waiting_in_chinese)


def _waiting_in_chinese(alice: Page) -> None:
    expect(alice).to_have_url(re.compile(r"/a/\d+/wait/$"))
    expect(alice.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    assert_chinese(alice, selectors=GRAPH)


def export_reads_back(campaign: Campaign, out: Path, *options: str) -> bytes:
    """The campaign's DuConv export (all in train.txt), imported as a new campaign and exported again:
    the same bytes, or the assertion says where they differ."""
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    split = ("--test", "0", "--valid", "0")
    call_command("export_dataset", "duconv", "--campaign", campaign.slug, *options, *split, "--out", str(out / "first"), **quiet)
    exported = (out / "first" / "train.txt").read_bytes()
    call_command("import_dataset", "duconv", str(out / "first" / "train.txt"), "--job", f"{campaign.slug}-{out.name}", **quiet)
    call_command("export_dataset", "duconv", "--campaign", f"{campaign.slug}-{out.name}", *split, "--out", str(out / "again"), **quiet)
    assert (out / "again" / "train.txt").read_bytes() == exported
    return exported


def test_a_chinese_dialogue_typed_with_an_input_method(
    zh_campaign: Campaign, browser: Browser, daphne_server: str, tmp_path: Path  # noqa: F811
) -> None:
    agent, user = open_pair_in_chinese(browser, daphne_server, zh_campaign)
    expect(agent.get_by_test_id("topic-a")).to_have_text(f"A: {A}")
    expect(agent.get_by_test_id("topic-b")).to_have_text(f"B: {B}")
    expect(agent.get_by_test_id("send-button")).to_be_enabled()
    assert_chinese(agent, user, selectors=GRAPH)  # the demo's screens are in Chinese: no English word left

    year = use(agent, A, "上映时间")
    box = agent.get_by_test_id("message-input")
    box.focus()
    agent.keyboard.insert_text("看过")
    cdp = agent.context.new_cdp_session(agent)
    compose(cdp, "daomengkongjian", A)
    enter_key(cdp)  # picks the candidate: part of the composition, not a send
    cdp.send("Input.insertText", {"text": A})  # the input method commits it
    enter_key(cdp, 229)  # Safari's order: the Enter's keydown after compositionend, keyCode 229
    expect(box).to_have_value(f"看过{A}")
    agent.keyboard.insert_text("吗？2010年的😀")
    text = f"看过{A}吗？2010年的😀"
    expect(agent.get_by_test_id("char-counter")).to_have_text(f"{len(text)} / {LIMIT}")  # 15: the emoji is one
    agent.keyboard.press("Enter")
    expect(agent.locator('[data-testid="message"][data-seq="1"]')).to_have_attribute("data-state", "sent")
    expect(user.locator('[data-testid="message"][data-seq="1"] .message-text')).to_have_text(text)
    expect(agent.locator('[data-testid="message"]')).to_have_count(1)  # the composing Enters sent nothing

    # The triple whose value the message named is marked; the others are not.
    expect(triple(agent, "上映时间")).to_have_attribute("data-mentioned", "true")
    expect(triple(agent, "片长")).to_have_attribute("data-mentioned", "false")
    expect(agent.get_by_test_id("topic-a")).to_have_class(re.compile("goal-reached"))

    send(user, agent, "看过！很好看。", 2)
    director = use(agent, A, "导演")
    send(agent, user, "导演是克里斯托弗・诺兰吧？", 3)  # typed with the katakana middle dot
    expect(triple(agent, "导演")).to_have_attribute("data-mentioned", "true")
    expect(agent.get_by_test_id("topic-b")).to_have_class(re.compile("goal-reached"))
    send(user, agent, "对，他很厉害。", 4)
    send(agent, user, "他出生在伦敦。", 5)
    expect(triple(agent, "出生地", B)).to_have_attribute("data-mentioned", "true")
    send(user, agent, "原来如此", 6)
    send(agent, user, "你喜欢科幻片吗？", 7)

    # The limit counts characters: 21 are refused on the page; 20 emoji (40 UTF-16 units) go through.
    box = user.get_by_test_id("message-input")
    expect(user.get_by_test_id("send-button")).to_be_enabled()
    box.fill("好" * (LIMIT + 1))
    expect(user.get_by_test_id("char-counter")).to_have_text(f"{LIMIT + 1} / {LIMIT}")
    user.get_by_test_id("send-button").click()
    expect(user.locator("#composer-error")).to_be_visible()
    expect(user.locator('[data-testid="message"][data-seq="8"]')).to_have_count(0)
    send(user, agent, "😀" * LIMIT, 8)

    expect(agent.get_by_test_id("end-button")).to_be_visible()
    assert_chinese(agent, user, selectors=GRAPH)
    agent.get_by_test_id("end-button").click()
    agent.get_by_test_id("confirm-yes").click()  # "End chat" asks once more
    expect(user.get_by_test_id("rating-form")).to_be_visible()
    assert_chinese(agent, user, selectors=GRAPH)
    user.locator('[data-testid="rating-option"][data-value="5"]').click()
    user.get_by_test_id("rating-submit").click()
    for page in (agent, user):
        expect(page).to_have_url(re.compile(r"/done/$"))
        assert_chinese(page, selectors=GRAPH)

    room = Room.objects.get(campaign=zh_campaign)
    assert room.status == RoomStatus.COMPLETE and DuConvSession.objects.get(room=room).user_rating == 5
    stored = list(Message.objects.filter(room=room).order_by("seq"))
    assert [m.text for m in stored] == [text, "看过！很好看。", "导演是克里斯托弗・诺兰吧？", "对，他很厉害。",
                                        "他出生在伦敦。", "原来如此", "你喜欢科幻片吗？", "😀" * LIMIT]
    assert stored[0].knowledge_used == [year] and stored[2].knowledge_used == [director]

    plain = json.loads(export_reads_back(zh_campaign, tmp_path / "plain"))
    assert plain["conversation"] == [m.text for m in stored] and plain["goal"][0] == ["START", A, B]
    segmented = json.loads(export_reads_back(zh_campaign, tmp_path / "segmented", "--segment"))
    assert [t.replace(" ", "") for t in segmented["conversation"]] == [m.text for m in stored] != segmented["conversation"]
    assert agent.script_errors == [] and user.script_errors == []  # type: ignore[attr-defined]
