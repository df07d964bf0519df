"""Labels other apps give the exporters, without collect importing them.

collect sits below annotate: annotate builds on collect's rooms and messages, so collect never
imports annotate. An app that labels collected messages registers a provider here from its
AppConfig.ready(); an exporter asks for labels by kind and gets none when no provider is installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

# collect Message ids -> {message id: labels}; a message nobody labeled is absent.
MessageLabels = Callable[[list[int]], dict[int, list[str]]]

DIALOG_ACTS = "dialog_acts"
_providers: dict[str, MessageLabels] = {}


def message_labels_register(*, kind: str, provider: MessageLabels) -> None:
    _providers[kind] = provider


def message_labels(*, kind: str, message_ids: list[int]) -> dict[int, list[str]]:
    provider = _providers.get(kind)
    return provider(message_ids) if provider is not None and message_ids else {}


# Files another app writes beside a dataset's export: (out_dir, campaign slugs) -> (file name, records).
CompanionWriter = Callable[[Path, list[str]], tuple[str, int]]
_companions: dict[str, list[CompanionWriter]] = {}


def companion_register(*, dataset: str, writer: CompanionWriter) -> None:
    _companions.setdefault(dataset, []).append(writer)


def companions_write(*, dataset: str, out_dir: Path, campaigns: list[str]) -> dict[str, int]:
    """Run every writer registered for `dataset`; file name -> records written."""
    return dict(writer(out_dir, campaigns) for writer in _companions.get(dataset, []))
