"""A protocol is one small module: roles, what each role sees, the per-turn hook, the completion
rule, the end-of-chat form and its exporter."""

from __future__ import annotations

from types import ModuleType


def get_protocol(name: str) -> ModuleType:
    from collect.protocols import wow

    protocols = {"wow": wow}
    try:
        return protocols[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}") from None
