"""The review API under /api/research/ (staff only): the review page's listing and actions as JSON."""
