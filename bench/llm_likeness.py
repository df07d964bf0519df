"""How well the llm_like signal (collect/authenticity/likeness.py) tells people's turns from a
model's: Wizard of Wikipedia turns people wrote (the contexts of a WOW++ file) against replies
SmolLM2-135M-Instruct samples for the same contexts, both scored under the same checkpoint.
Prints the ROC AUC, each threshold's share of people's turns flagged (false flags) and of the
model's caught, the threshold with no false flag, and the scoring time per turn.

    .venv/bin/python bench/llm_likeness.py [--wowpp FILE] [--model var/models/smollm2-135m] [--turns 200]

`make smollm2` converts the checkpoint. The model's replies are SmolLM2's own: text from a larger
model, which a cheating worker would paste, is less probable under SmolLM2 than its own samples,
so the figures here are an upper bound on what the signal catches.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WOWPP = ROOT.parent / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"


def people_turns(path: Path, count: int, rng: random.Random) -> list[tuple[list[str], str]]:
    """(context, turn) pairs: each a turn people wrote and the turns before it."""
    pairs = []
    for item in json.loads(path.read_text(encoding="utf-8")).values():
        turns = item["turns"]
        for i in range(1, len(turns)):
            if len(turns[i].split()) >= 8:
                pairs.append((turns[:i], turns[i]))
    rng.shuffle(pairs)
    return pairs[:count]


def model_replies(contexts: list[list[str]], model_path: Path, rng: random.Random) -> list[str]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(rng.randrange(2**31))
    tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(model_path, local_files_only=True, dtype=torch.float32).eval()
    replies = []
    for n, context in enumerate(contexts, start=1):
        if n % 50 == 0:
            print(f"generated {n - 1} of {len(contexts)} replies", file=sys.stderr, flush=True)
        messages = [{"role": "system", "content": "You are chatting about a topic. Reply in one or two sentences."}]
        for n, turn in enumerate(context[-4:]):
            messages.append({"role": "user" if (len(context[-4:]) - n) % 2 else "assistant", "content": turn})
        inputs = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        with torch.no_grad():
            out = model.generate(**inputs, max_new_tokens=48, do_sample=True, temperature=0.8, top_p=0.95)
        replies.append(tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True).strip())
    return replies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wowpp", type=Path, default=DEFAULT_WOWPP)
    parser.add_argument("--model", type=Path, default=ROOT / "var" / "models" / "smollm2-135m")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not args.wowpp.exists():
        sys.exit(f"no WOW++ file at {args.wowpp} (--wowpp FILE)")
    if not (args.model / "config.json").exists():
        sys.exit(f"no checkpoint at {args.model} (make smollm2)")
    sys.path.insert(0, str(ROOT))
    from bench._setup import django_bare

    django_bare()
    from sklearn.metrics import roc_auc_score

    from collect.authenticity.likeness import mean_logprobs

    rng = random.Random(args.seed)
    pairs = people_turns(args.wowpp, args.turns, rng)
    started = time.perf_counter()
    replies = model_replies([context for context, _ in pairs], args.model, rng)
    generated_s = time.perf_counter() - started
    people = [turn for _, turn in pairs]
    models = [reply for reply in replies if len(reply.split()) >= 4]
    started = time.perf_counter()
    scores = mean_logprobs(people + models, model_path=args.model)
    per_turn_ms = (time.perf_counter() - started) * 1000 / len(scores)
    human, machine = [s for s, _ in scores[: len(people)]], [s for s, _ in scores[len(people) :]]
    auc = roc_auc_score([0] * len(human) + [1] * len(machine), human + machine)
    print(f"people's turns {len(human)}, SmolLM2 replies {len(machine)} (generated in {generated_s:.0f} s)")
    print(f"mean log-probability per token (nats): people median {sorted(human)[len(human) // 2]:.2f}, "
          f"SmolLM2 median {sorted(machine)[len(machine) // 2]:.2f}; ROC AUC {auc:.3f}")
    print(f"scoring: {per_turn_ms:.1f} ms per turn (batches of 16, {'GPU' if _cuda() else 'CPU'})")
    print("threshold  people flagged  SmolLM2 caught")
    for threshold in (-4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0):
        flagged = sum(s > threshold for s in human) / len(human)
        caught = sum(s > threshold for s in machine) / len(machine)
        print(f"{threshold:9.1f}  {flagged:14.1%}  {caught:14.1%}")
    from django.conf import settings

    default = settings.AUTHENTICITY_LLM_THRESHOLD
    print(f"the configured threshold {default:.2f}: people flagged {sum(s > default for s in human) / len(human):.1%}, "
          f"SmolLM2 caught {sum(s > default for s in machine) / len(machine):.1%}")
    safe = max(human)
    print(f"no false flag above {safe:.2f}: SmolLM2 caught there {sum(s > safe for s in machine) / len(machine):.1%}")


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


if __name__ == "__main__":
    main()
