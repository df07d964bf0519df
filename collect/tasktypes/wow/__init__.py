"""Wizard of Wikipedia (Dinan et al., 2019): a wizard who sees knowledge retrieved for every turn
and checks the sentence used, a curious apprentice, and the apprentice's rating at the end."""

NAME = "wow"  # Campaign.protocol of its campaigns, and its name on the command line
WIZARD = "wizard"
APPRENTICE = "apprentice"
