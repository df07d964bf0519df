"""Importers of existing dialogue datasets into collect's rooms (so they can be annotated and
exported again). One module per dataset: `curiosity.curiosity_import`."""
