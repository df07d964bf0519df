from django.apps import AppConfig

from collect import registry
from collect.tasktypes.woi import NAME


class WoiConfig(AppConfig):
    name = "collect.tasktypes.woi"
    label = "woi"
    verbose_name = "Wizard of Internet"

    def ready(self) -> None:
        registry.task_type_register(registry.TaskType(
            name=NAME,
            label="Wizard of Internet",
            protocol="collect.tasktypes.woi.protocol.WOI",
            dataset="woi",
            simulate="collect.tasktypes.woi.simulation.simulate",
            demo="collect.tasktypes.woi.demo.demo_ensure",
        ))
        registry.dataset_register(registry.Dataset(
            name="woi", label="Wizard of Internet (ParlAI's train/valid/test JSON Lines)",
            export="collect.tasktypes.woi.exporter.export", authenticity=True,
            import_file="collect.tasktypes.woi.importer.import_file",
            hf="collect.tasktypes.woi.hf.hf", conformance="collect.tasktypes.woi.conformance.conformance",
        ))
