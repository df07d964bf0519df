"""What the evaluator's page is shown of a model's reply while it is being made: frames that are
never stored, published to the room's group as `room.progress` events (the room socket sends them
to the other role's pages as they are, collect/consumers/room.py):

    {"type": "busy", "after_seq": n, "position": 2}            the call waits its turn (1: next)
    {"type": "stream", "after_seq": n, "attempt": 1, "text": "The text so far"}

(with "candidate": i beside them when several models answer the same message, prism.py). A
`stream` frame carries the whole text so far, not the new tokens: a page that missed frames (a
reconnect, a frame the layer dropped) shows the right text with the next one, and a retry starts
the text again (its `attempt` grows). They go at most once per settings.STREAM_FRAME_S, and the
last text is flushed when the stream ends. The reply itself arrives as an ordinary message with
its seq, once stored; a page that reloads mid-stream sees the next frame, then that message.

Publishing never raises: a lost frame costs the page one step of the text, never the reply."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings

from collect.groups import room_group
from collect.tasktypes.modelchat.protocol import PARTNER

log = logging.getLogger(__name__)

Publish = Callable[[dict[str, Any]], None]  # sends one group event to the room's group
# Citation marks the stored reply loses (knowledge_use.py), and one still being written at the end.
_CITATIONS = re.compile(r"\s*\[\d{1,3}\]|\s*\[\d{0,3}$")
SEND_TIMEOUT_S = 5.0


def text_shown(text: str) -> str:
    """A reply's text so far as the page shows it: without the [n] citations the stored reply drops."""
    return _CITATIONS.sub("", text).lstrip()


class ReplyProgress:
    """The progress frames of one reply: to message `after_seq`, from candidate `candidate` (None:
    the room's one model). Thread-safe enough for its use: one calling thread per reply."""

    def __init__(self, publish: Publish | None, *, after_seq: int, candidate: int | None = None, interval: float | None = None) -> None:
        self.publish = publish
        self.after_seq = after_seq
        self.candidate = candidate
        self.interval = settings.STREAM_FRAME_S if interval is None else interval
        self.attempt = 1
        self.sent_at = float("-inf")
        self.sent_text = ""
        self.pending: str | None = None
        self.frames = 0  # stream frames sent (the bench and the tests read it)

    def _frame(self, kind: str, **fields: Any) -> dict[str, Any]:
        frame = {"type": kind, "after_seq": self.after_seq, **fields}
        if self.candidate is not None:
            frame["candidate"] = self.candidate
        return frame

    def _send(self, frame: dict[str, Any]) -> None:
        if self.publish is None:
            return
        try:
            self.publish({"type": "room.progress", "role": PARTNER, "frame": frame})
        except Exception as error:  # noqa: BLE001 - a progress frame is worth no failed reply
            log.warning("progress frame %s not sent: %s", frame["type"], error)

    def queued(self, position: int) -> None:
        """The call waits for a free place among the model's calls; `position` 1 is next."""
        self._send(self._frame("busy", position=position))

    def retry(self, attempt: int) -> None:
        """A new attempt: its text starts again (the page replaces the failed one's with it)."""
        self.attempt = attempt
        self.sent_text, self.pending = "", None

    def text(self, so_far: str) -> None:
        """The reply's text so far; sent now, or with a later piece or the flush (throttled)."""
        shown = text_shown(so_far)
        if not shown or shown == self.sent_text:
            return
        now = time.monotonic()
        if now - self.sent_at < self.interval:
            self.pending = shown
            return
        self._stream(shown, now)

    def flush(self) -> None:
        """The stream ended: the text held back by the throttle goes now."""
        if self.pending is not None and self.pending != self.sent_text:
            self._stream(self.pending, time.monotonic())

    def _stream(self, shown: str, now: float) -> None:
        self.sent_at, self.sent_text, self.pending = now, shown, None
        self.frames += 1
        self._send(self._frame("stream", attempt=self.attempt, text=shown))


def publisher_on_loop(loop: asyncio.AbstractEventLoop, room_id: Any) -> Publish:
    """Publish from a thread through the channel layer of the chat process whose event loop is
    `loop` (the embedded mode: the in-memory layer's queues belong to that loop). Each send is
    waited for, so the frames keep their order."""
    from channels.layers import get_channel_layer

    group = room_group(room_id)

    def publish(event: dict[str, Any]) -> None:
        asyncio.run_coroutine_threadsafe(get_channel_layer().group_send(group, event), loop).result(SEND_TIMEOUT_S)

    return publish


def publisher_from_worker(room_id: Any) -> Publish:
    """Publish from a Celery worker (groundwork.layer_publish keeps one sender loop per process)."""
    from groundwork.layer_publish import group_send

    group = room_group(room_id)
    return lambda event: group_send(group, event)
