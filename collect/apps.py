from django.apps import AppConfig


class CollectConfig(AppConfig):
    name = "collect"
    verbose_name = "Collection"

    def ready(self) -> None:
        from collect.metrics import DatabaseCollector
        from groundwork.metrics_scrape import scrape_collector_register

        scrape_collector_register(DatabaseCollector())
