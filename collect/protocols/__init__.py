"""A protocol is one small module: roles, what each role sees, the per-turn hook, the completion
rule, the end-of-chat form and its exporter. See base.Protocol."""

from __future__ import annotations

from collect.protocols.base import Protocol


def get_protocol(name: str) -> Protocol:
    from collect.modelchat.protocol import MODEL_CHAT
    from collect.protocols.curiosity import CURIOSITY
    from collect.protocols.duconv import DUCONV
    from collect.protocols.wow import WOW

    protocols: dict[str, Protocol] = {WOW.name: WOW, CURIOSITY.name: CURIOSITY, DUCONV.name: DUCONV, MODEL_CHAT.name: MODEL_CHAT}
    try:
        return protocols[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}") from None
