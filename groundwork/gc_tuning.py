"""The garbage collector in long-running server processes.

Python's cyclic collector stops the process while it walks every container object of the
generations it collects. A full collection in a chat process walks everything Django, the channel
layer, retrieval and the open sockets ever made. Measured at 1,000 rooms with Python's defaults
(gc.callbacks in each process), most took 60–350 ms, during which the event loop, and so every
socket of that process, stood still: the tail of the chat's ack latency.

What a process loads before it serves (modules, settings, URL patterns, the knowledge index's
Python objects) lives as long as the process. `settle()` collects once and then moves all of it out
of the collector's sight (`gc.freeze`), so later collections walk only what came after."""

from __future__ import annotations

import gc

# Collect the youngest generation every 50,000 new objects instead of 700, and consider a full
# collection after 100 of the middle one's instead of 10. A server with thousands of requests in
# flight has many objects that are young but not yet garbage at a collection; collected less often,
# fewer of them are promoted to the generations whose collections stop the loop for long.
THRESHOLDS = (50_000, 20, 100)


def settle() -> None:
    """Call once a server process has loaded what it serves with, before it serves."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
