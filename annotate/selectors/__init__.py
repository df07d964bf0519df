"""Selectors read: progress, answers, entries and the researcher's report (each kind's figures are its own)."""
