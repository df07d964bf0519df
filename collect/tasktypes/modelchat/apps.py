from django.apps import AppConfig

from collect import registry
from collect.tasktypes.modelchat import NAME


class ModelChatConfig(AppConfig):
    name = "collect.tasktypes.modelchat"
    label = "modelchat"
    verbose_name = "Model chat"

    def ready(self) -> None:
        registry.task_type_register(registry.TaskType(
            name=NAME,
            label="Model chat (human evaluation)",
            protocol="collect.tasktypes.modelchat.protocol.MODEL_CHAT",
            dataset="modelchat",
            simulate="collect.tasktypes.modelchat.simulation.simulate",
            demo="collect.tasktypes.modelchat.demo.demo_ensure",
            enter="collect.tasktypes.modelchat.views.enter",
            worker_urls="collect.tasktypes.modelchat.urls.urlpatterns",
            aliases=("modelchat",),
        ))
        registry.dataset_register(registry.Dataset(
            name="modelchat", label="Model-chat conversations (JSON Lines, one conversation a line)",
            export="collect.tasktypes.modelchat.exporter.export",
            hf="collect.tasktypes.modelchat.hf.hf", conformance="collect.tasktypes.modelchat.conformance.conformance",
        ))
