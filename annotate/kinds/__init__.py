"""The annotation kinds: one package (a Django app) each, registered with annotate.registry."""
