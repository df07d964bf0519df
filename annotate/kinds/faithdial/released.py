"""FaithDial's released JSON (McGill-NLP/FaithDial, README "Data Format"; data/{train,valid,test}.json
of the Hugging Face dataset McGill-NLP/FaithDial): a list of dialogues, each {"utterances": [...]},
each utterance a wizard turn:

    {"history": [str, ...],          the dialogue before it, seeker first
     "speaker": "Wizard",
     "knowledge": str,               the knowledge sentence it must be faithful to
     "original_response": str|null,  the Wizard of Wikipedia response before editing (empty: unedited)
     "response": str,                the (edited) wizard response
     "BEGIN": [str, ...],            BEGIN labels (taxonomy.BEGIN)
     "VRM": [str, ...]}              VRM labels (taxonomy.VRM)

`original_response`, `BEGIN` and `VRM` are optional (the README: "don't have to be provided for your
own data"). The Hugging Face loader numbers the dialogues as `dialog_idx`. Files are written as
json.dumps(dialogues, indent=2, ensure_ascii=False) and a newline.
"""

from __future__ import annotations

import json

# An utterance's fields in the order the README lists them (and a written utterance has them).
FIELDS = ("history", "speaker", "knowledge", "original_response", "response", "BEGIN", "VRM")


def dumps(dialogues: list[dict]) -> str:
    return json.dumps(dialogues, indent=2, ensure_ascii=False) + "\n"
