"""Curiosity's fact database (Rodriguez et al., 2020): import it into a knowledge source, write one
from a knowledge source. See factdb."""
