"""FaithDial (Dziri et al., 2022, "FaithDial: A Faithful Benchmark for Information-Seeking Dialogue",
TACL; McGill-NLP/FaithDial): wizard responses of Wizard of Wikipedia dialogues labeled with the BEGIN
and VRM taxonomies and, where unfaithful to their knowledge, rewritten to be attributable to it."""

NAME = "faithdial"
