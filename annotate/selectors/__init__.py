"""Selectors read: progress, labels (what the crowd decided) and the researcher's report."""
