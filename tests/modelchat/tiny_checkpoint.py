"""A tiny causal LM written with save_pretrained into a test's folder (random weights, a word-level
tokenizer with a chat template): a real checkpoint directory that loads in a second, for the paths
that do not need a trained model."""

from __future__ import annotations

from pathlib import Path

WORDS = ["hello", "guitar", "strings", "six", "blues", "music", "the", "a", "is", "has"]
TEMPLATE = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }} {% endfor %}{% if add_generation_prompt %}assistant: {% endif %}"


def tiny_checkpoint(folder: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(["<unk>", "<eos>", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", eos_token="<eos>", pad_token="<eos>")
    tokenizer.chat_template = TEMPLATE
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
                         eos_token_id=1, pad_token_id=1, bos_token_id=None)
    import torch

    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
