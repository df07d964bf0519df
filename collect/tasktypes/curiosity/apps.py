from django.apps import AppConfig

from collect import registry
from collect.backup.kept import KeptFolder, kept_folder_register
from collect.tasktypes.curiosity import NAME


class CuriosityConfig(AppConfig):
    name = "collect.tasktypes.curiosity"
    label = "curiosity"
    verbose_name = "Curiosity"

    def ready(self) -> None:
        registry.task_type_register(registry.TaskType(
            name=NAME,
            label="Curiosity",
            protocol="collect.tasktypes.curiosity.protocol.CURIOSITY",
            dataset="curiosity",
            simulate="collect.tasktypes.curiosity.simulation.simulate",
            demo="collect.tasktypes.curiosity.demo.demo_ensure",
            research_urls="collect.tasktypes.curiosity.urls.research_urlpatterns",
        ))
        # Curiosity dialogs (+ their fact db) as complete rooms, to be annotated and exported again.
        registry.dataset_register(registry.Dataset(
            name="curiosity", label="Curiosity dialogs (curiosity_dialogs.<split>.json and the fact db)",
            export="collect.tasktypes.curiosity.exporter.export", authenticity=True,
            import_file="collect.tasktypes.curiosity.importer.import_file",
            hf="collect.tasktypes.curiosity.hf.hf", conformance="collect.tasktypes.curiosity.conformance.conformance",
        ))
        kept_folder_register(KeptFolder(
            member_prefix="var/curiosity/", folder_path="retrieval.curiosity.factdb.keep_dir",
            restored="collect.tasktypes.curiosity.backup.factdb_paths_relocate",
        ))
