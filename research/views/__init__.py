"""The researcher's pages under /research/, one module per page (research/urls.py mounts them)."""
