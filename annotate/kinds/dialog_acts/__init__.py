"""Curiosity's dialog acts: each message of a dialogue labeled with the acts of the Curiosity
paper's table."""

NAME = "dialog_acts"
