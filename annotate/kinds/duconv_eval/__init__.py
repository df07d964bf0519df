"""The DuConv competition's human evaluation: each dialogue scored for coherence and goal
completion."""

NAME = "duconv_eval"
