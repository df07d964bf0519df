"""The built-in bots answer from the knowledge a wizard would see, never from other people's chats:
the TF-IDF bot, in a model chat over the real socket while another worker's message that matches the
evaluator's words is in the database, answers with a knowledge sentence."""

from __future__ import annotations

import pytest

from collect.tasktypes.modelchat.bots import FALLBACK, TfidfKnowledgeBot
from collect.models import Message
from tests.collect.ws import connect, receive_until, send
from tests.conftest import ARTICLES
from tests.factories import add_message, make_campaign, make_room
from tests.modelchat.conftest import seat

pytestmark = pytest.mark.backends

KNOWLEDGE = [
    {"title": "Tea", "sentences": ["Tea is an aromatic beverage.", "Green tea is made from unoxidised leaves.", "Tea comes from China."]},
]


def test_the_tfidf_bot_answers_with_the_knowledge_sentence_nearest_the_last_message() -> None:
    reply = TfidfKnowledgeBot().respond({"history": ["Is green tea made from different leaves?"], "topic": "Tea", "knowledge": KNOWLEDGE})
    assert reply == {"text": "Green tea is made from unoxidised leaves.", "knowledge_used": "Green tea is made from unoxidised leaves."}


def test_the_tfidf_bot_never_says_a_sentence_twice_and_falls_back_without_knowledge() -> None:
    history = ["Is green tea made from different leaves?", "Green tea is made from unoxidised leaves.", "Which leaves?"]
    reply = TfidfKnowledgeBot().respond({"history": history, "topic": "Tea", "knowledge": KNOWLEDGE})
    assert reply["text"] != "Green tea is made from unoxidised leaves."
    assert reply["text"] in KNOWLEDGE[0]["sentences"]
    assert TfidfKnowledgeBot().respond({"history": ["hi"], "topic": "Tea", "knowledge": []}) == {"text": FALLBACK}
    # DuConv knowledge (triples) is not passages: nothing to answer from.
    assert TfidfKnowledgeBot().respond({"history": ["hi"], "topic": "Tea", "knowledge": [["Tea", "from", "China"]]}) == {"text": FALLBACK}


OTHER_WORKERS_WORDS = "Blues guitar legends played the blues in Chicago clubs, where the genre originated for me."


@pytest.mark.django_db(transaction=True)
async def test_the_tfidf_bot_never_repeats_another_workers_message(mc_campaign) -> None:
    from asgiref.sync import sync_to_async

    @sync_to_async
    def setup():
        wow = make_campaign(slug="wow-other", protocol="wow", knowledge_source=mc_campaign.knowledge_source)
        other = make_room(wow, topic="Blues")
        add_message(other, "apprentice", "Where did the blues come from?")
        add_message(other, "wizard", OTHER_WORKERS_WORDS)
        return seat(mc_campaign, "erin", model="tfidf-reply")

    erin = await setup()
    socket = await connect(f"/ws/room/{erin.room.id}/", erin.cookie)
    await receive_until(socket, "state")
    await send(socket, {"type": "choose_topic", "topic": "Blues"})
    replies = []
    for turn, text in enumerate(["Did blues guitar legends play in Chicago clubs?", "Where did the genre originate?"]):
        await send(socket, {"type": "message", "client_id": f"h{turn}", "text": text})
        while True:
            frame = await receive_until(socket, "message", timeout=10)
            if frame["role"] == "wizard":
                break
        replies.append(frame["text"])
        await send(socket, {"type": "label", "seq": frame["seq"], "problems": ["none"]})
    await socket.disconnect()

    article_text = " ".join(text for _title, text in ARTICLES)
    for reply in replies:
        assert OTHER_WORKERS_WORDS not in reply and reply not in OTHER_WORKERS_WORDS
        assert reply in article_text  # a sentence of the knowledge, word for word
    stored = [m async for m in Message.objects.filter(room=erin.room, role="wizard").order_by("seq")]
    assert [m.text for m in stored] == replies and all(m.checked_sentence for m in stored)
