"""`candidate_responses` of the WoW valid and test files, as the original release has them: on every
wizard turn, 100 responses, the gold one among 99 wizard responses drawn from other dialogues of
the same file (ParlAI's WizardDialogKnowledgeTeacher, `--label-type response`, ranks them).

Draws are seeded by (seed, room, message): the same export gives the same file. A file with fewer
than 99 other distinct wizard responses gives each turn what it has, and the export says so.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from typing import Any, Callable

from django.db.models import QuerySet

from collect.models import Message, Room

CANDIDATES = 100


class CandidatePools:
    """Every wizard response of each candidate-bearing file, to draw the others from."""

    def __init__(
        self, *, rooms: QuerySet[Room], files: tuple[str, ...], file_of: Callable[[str, Any], str], seed: int
    ) -> None:
        """`file_of(topic, room id)` names the file a room goes to; `files` are those whose wizard
        turns get candidates."""
        self.seed = seed
        self.pools: dict[str, list[tuple[Any, str]]] = defaultdict(list)
        self.short: Counter[str] = Counter()  # file -> wizard turns given fewer than CANDIDATES
        room_files = {pk: file_of(topic, pk) for pk, topic in rooms.values_list("pk", "topic").iterator(chunk_size=2000)}
        wanted = {pk for pk, file in room_files.items() if file in files}
        responses = (
            Message.objects.filter(room_id__in=rooms.values("pk"), role="wizard")
            .order_by("room_id", "seq")
            .values_list("room_id", "text")
            .iterator(chunk_size=2000)
        )
        for room_id, text in responses:
            if room_id in wanted:
                self.pools[room_files[room_id]].append((room_id, text))

    def draw(self, file: str, room_id: Any, seq: int, gold: str) -> list[str]:
        pool = self.pools[file]
        digest = hashlib.sha256(f"{self.seed}\x1fcandidates\x1f{room_id}\x1f{seq}".encode()).digest()
        rng = random.Random(digest)
        others: list[str] = []
        seen = {gold}
        # A sample a few times larger than needed is nearly always enough; the whole pool otherwise.
        first = min(len(pool), 3 * CANDIDATES)
        for size in (first, len(pool)) if first < len(pool) else (first,):
            for index in rng.sample(range(len(pool)), size):
                other_room, text = pool[index]
                if other_room != room_id and text not in seen:
                    seen.add(text)
                    others.append(text)
                    if len(others) == CANDIDATES - 1:
                        break
            if len(others) == CANDIDATES - 1:
                break
        if len(others) < CANDIDATES - 1:
            self.short[file] += 1
        others.insert(rng.randrange(len(others) + 1), gold)
        return others

    def notes(self) -> list[str]:
        return [
            f"{file}: {count} wizard turn(s) have fewer than {CANDIDATES} candidate_responses "
            f"(fewer than {CANDIDATES - 1} other distinct wizard responses in that file)"
            for file, count in sorted(self.short.items())
        ]
