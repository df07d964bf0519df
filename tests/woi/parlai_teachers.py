"""Run by the interpreter GROUNDWORK_PARLAI_PYTHON names (ParlAI 1.7.2 installed), not by the test
run: reads `<datapath>/wizard_of_interent/<split>.jsonl` with ParlAI's own `wizard_of_internet`
teachers and prints, as JSON on its last line, each teacher's example and episode counts and every example's labels.

    python parlai_teachers.py DATAPATH SPLIT TEACHER...
"""

import json
import sys

from parlai.core.params import ParlaiParser
from parlai.core.teachers import create_task_agent_from_taskname


def read(datapath: str, split: str, task: str) -> dict:
    # train:ordered: one pass, in file order (a training teacher otherwise cycles for ever).
    datatype = "train:ordered" if split == "train" else split
    opt = ParlaiParser(True, False).parse_args(["--task", task, "--datapath", datapath, "--datatype", datatype])
    teacher = create_task_agent_from_taskname(opt)[0]
    labels = []
    while not teacher.epoch_done():
        act = teacher.act()
        # valid and test examples carry their labels as eval_labels
        labels.append([str(label) for label in act.get("labels", act.get("eval_labels", []))])
    return {"examples": teacher.num_examples(), "episodes": teacher.num_episodes(), "labels": labels}


if __name__ == "__main__":
    datapath, split, *tasks = sys.argv[1:]
    # ParlAI logs to stdout: the result is the last line.
    print("\n" + json.dumps({task: read(datapath, split, task) for task in tasks}))
