"""Review and pay: automatic checks on finished dialogues, decisions (approve, soft-reject,
reject, bonus, block, notes), the crowd platforms' APIs, and the CSV for paying without them."""
