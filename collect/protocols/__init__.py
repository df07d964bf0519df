"""A protocol is one small module: roles, what each role sees, the per-turn hook, the completion
rule, the end-of-chat form and its exporter. See base.Protocol."""

from __future__ import annotations

from collect.protocols.base import Protocol


_PROTOCOLS: dict[str, Protocol] = {}


def get_protocol(name: str) -> Protocol:
    if not _PROTOCOLS:
        # Imported on first use, not with this package: the protocols import models and services
        # that import this package. Kept after that: every chat message asks several times.
        from collect.modelchat.protocol import MODEL_CHAT
        from collect.protocols.curiosity import CURIOSITY
        from collect.protocols.duconv import DUCONV
        from collect.protocols.wow import WOW

        _PROTOCOLS.update({p.name: p for p in (WOW, CURIOSITY, DUCONV, MODEL_CHAT)})
    try:
        return _PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}") from None
