"""Curiosity's pieces that are not the room protocol itself: the campaign config, the prior-knowledge
entities, the assistant's fact bank and the researcher's analysis. The protocol is
collect/protocols/curiosity.py."""
