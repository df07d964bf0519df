"""Curiosity (Rodriguez et al., 2020): a user who marks the entities they know and likes answers,
and an assistant with a nine-fact bank rooted in what the user knows, who marks the facts used."""

NAME = "curiosity"  # Campaign.protocol of its campaigns, and its name on the command line
