from django.apps import AppConfig

from collect import registry
from collect.tasktypes.duconv import NAME


class DuConvConfig(AppConfig):
    name = "collect.tasktypes.duconv"
    label = "duconv"
    verbose_name = "DuConv"

    def ready(self) -> None:
        registry.task_type_register(registry.TaskType(
            name=NAME,
            label="DuConv (goal-driven, knowledge graph)",
            protocol="collect.tasktypes.duconv.protocol.DUCONV",
            dataset="duconv",
            simulate="collect.tasktypes.duconv.simulation.simulate",
            demo="collect.tasktypes.duconv.demo.demo_ensure",
        ))
        # DuConv sessions as complete rooms (agent = even turns), their triples as the campaign's graph.
        registry.dataset_register(registry.Dataset(
            name="duconv", label="DuConv sessions (JSON Lines: goal, knowledge, conversation)",
            export="collect.tasktypes.duconv.exporter.export", authenticity=True,
            import_file="collect.tasktypes.duconv.importer.import_file",
            hf="collect.tasktypes.duconv.hf.hf", conformance="collect.tasktypes.duconv.conformance.conformance",
        ))
