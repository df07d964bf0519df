"""Pairwise comparison of two conversations (ACUTE-Eval), and the human-evaluation results of the
model-chat campaigns they are drawn from."""

NAME = "pairwise"
