"""Topical-Chat (Gopalakrishnan et al., 2019; alexa/Topical-Chat): two equal partners, each with a
reading set drawn from the topic's knowledge, who mark with every message the reading-set entries
it draws on and its sentiment, rate each turn they receive, and rate the conversation at the end."""

NAME = "topical_chat"  # Campaign.protocol of its campaigns, and its name on the command line
