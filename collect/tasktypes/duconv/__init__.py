"""DuConv (Wu et al., 2019): an agent leads the chat from a start to topic A and then to topic B
over knowledge-graph triples; the user sees only the chat."""

NAME = "duconv"  # Campaign.protocol of its campaigns, and its name on the command line
