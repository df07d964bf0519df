from django.apps import AppConfig

from collect import registry
from collect.tasktypes.topical_chat import NAME


class TopicalChatConfig(AppConfig):
    name = "collect.tasktypes.topical_chat"
    label = "topical_chat"
    verbose_name = "Topical-Chat"

    def ready(self) -> None:
        registry.task_type_register(registry.TaskType(
            name=NAME,
            label="Topical-Chat (two partners, reading sets)",
            protocol="collect.tasktypes.topical_chat.protocol.TOPICAL_CHAT",
            dataset="topical_chat",
            simulate="collect.tasktypes.topical_chat.simulation.simulate",
            demo="collect.tasktypes.topical_chat.demo.demo_ensure",
        ))
        # conversations/<split>.json and reading_sets/post-build/<split>.json, as the release has them.
        registry.dataset_register(registry.Dataset(
            name="topical_chat",
            label="Topical-Chat (conversations/<split>.json and reading_sets/<build>/<split>.json)",
            export="collect.tasktypes.topical_chat.exporter.export", authenticity=True,
            import_file="collect.tasktypes.topical_chat.importer.import_file",
            hf="collect.tasktypes.topical_chat.hf.hf", conformance="collect.tasktypes.topical_chat.conformance.conformance",
        ))
