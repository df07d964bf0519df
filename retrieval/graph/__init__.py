"""The knowledge graph (DuConv): triples per knowledge source, their import, and goal generation.

Callers use `retrieval.graph.services`; nothing here knows about chats."""
