"""What a room socket's page has of the room's messages, so that nothing is sent twice and a gap
(a broadcast lost with a dead process or with Redis) is noticed and filled by a catch-up.

Messages are numbered 1, 2, 3, ... with no gaps (Message.seq). The page has every seq up to `base`
(its last `sync` said so, capped at what the room has) and each seq sent on this socket since."""

from __future__ import annotations


class SyncCursor:
    def __init__(self) -> None:
        self.base = 0
        self.sent: set[int] = set()
        self.synced = False  # the page has sent its first `sync` (before it, broadcasts are sent as they come)

    def synced_to(self, after: int) -> int:
        """The page says it has everything up to `after`: the seq to catch up from."""
        self.base = max(self.base, after)
        return self.base

    def cap(self, last_seq: int) -> None:
        """A page cannot have seqs the room has not reached (a stale or bad `after`): counting them
        as sent would hide the next messages, the page's own acknowledgements among them."""
        self.base = min(self.base, last_seq)

    def has(self, seq: int) -> bool:
        return seq in self.sent or (self.synced and seq <= self.base)

    def mark_sent(self, seq: int) -> None:
        self.sent.add(seq)

    def top(self) -> int:
        """The highest seq the page has."""
        return max(self.base, max(self.sent, default=0))

    def lacks(self, upto: int) -> bool:
        """Whether some seq in (base, upto] never reached this socket."""
        return any(seq not in self.sent for seq in range(self.base + 1, upto + 1))
