"""Wizard of Internet (Komeili et al., 2022, "Internet-Augmented Dialogue Generation"): the
apprentice writes a short persona before chatting; the wizard types search queries, sees the top
documents with their sentences, and selects the sentences (from one or more documents, or none)
each reply uses."""

NAME = "woi"  # Campaign.protocol of its campaigns, and its name on the command line
WIZARD = "wizard"
APPRENTICE = "apprentice"
