"""Knowledge relevance (WOW++): which of the knowledge sentences shown for a wizard turn could be
used in its reply, voted by several annotators."""

NAME = "relevance"
