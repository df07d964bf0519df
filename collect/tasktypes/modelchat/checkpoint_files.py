"""What `register_model --transformers PATH` checks before it stores a local checkpoint: the path
exists; a GGUF file is whole (its tensors all lie inside the file); a directory holds a config,
weights and a tokenizer; and the model is a causal language model that `transformers` can build.
Reads headers and configuration only: the weights load in the worker (checkpoints.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class CheckpointProblem(Exception):
    """The checkpoint cannot be used; the message says why, naming the path."""


@dataclass(frozen=True)
class CheckpointFiles:
    directory: str
    gguf_file: str | None  # the file's name inside `directory`, for a GGUF checkpoint

    def pretrained_kwargs(self) -> dict[str, str]:
        return {"gguf_file": self.gguf_file} if self.gguf_file else {}


def checkpoint_locate(*, path: str) -> CheckpointFiles:
    target = Path(path).expanduser()
    if not target.exists():
        raise CheckpointProblem(f"{path}: no such file or directory")
    if target.is_dir():
        return CheckpointFiles(str(target.resolve()), None)
    return CheckpointFiles(str(target.resolve().parent), target.name)


def _gguf_whole(path: Path) -> None:
    import gguf

    try:
        reader = gguf.GGUFReader(str(path))
        end = max((int(t.data_offset) + int(t.n_bytes) for t in reader.tensors), default=0)
    except Exception as error:  # noqa: BLE001 - the reader fails in many ways on a cut file
        raise CheckpointProblem(f"{path}: not a whole GGUF file (truncated or damaged?): {type(error).__name__}: {error}") from None
    if not reader.tensors:
        raise CheckpointProblem(f"{path}: a GGUF file without tensors")
    if end > path.stat().st_size:
        raise CheckpointProblem(f"{path}: truncated: its tensors end at byte {end}, the file has {path.stat().st_size}")


def _directory_files(directory: Path) -> None:
    if not (directory / "config.json").exists():
        raise CheckpointProblem(f"{directory}: no config.json, so not a transformers checkpoint (give the directory save_pretrained wrote, or a .gguf file)")
    weights = sorted(directory.glob("*.safetensors")) + sorted(directory.glob("pytorch_model*.bin"))
    if not weights:
        raise CheckpointProblem(f"{directory}: no weights (*.safetensors or pytorch_model*.bin)")
    if not any((directory / name).exists() for name in ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")):
        raise CheckpointProblem(f"{directory}: no tokenizer files (tokenizer.json or tokenizer_config.json)")
    from safetensors import safe_open

    for file in weights:
        if file.suffix == ".safetensors":
            try:
                with safe_open(str(file), framework="pt") as handle:
                    handle.keys()
            except Exception as error:  # noqa: BLE001
                raise CheckpointProblem(f"{file}: unreadable safetensors file (truncated or damaged?): {error}") from None


def checkpoint_check(*, path: str) -> str:
    """Raise CheckpointProblem when `path` cannot be a local checkpoint; else describe the model
    in a few words (architecture, kind of file)."""
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    files = checkpoint_locate(path=path)
    if files.gguf_file:
        _gguf_whole(Path(files.directory) / files.gguf_file)
    else:
        _directory_files(Path(files.directory))
    try:
        config = AutoConfig.from_pretrained(files.directory, local_files_only=True, **files.pretrained_kwargs())
    except Exception as error:  # noqa: BLE001 - transformers' message says what it could not read
        raise CheckpointProblem(f"{path}: transformers cannot read its configuration: {error}") from None
    model_type = getattr(config, "model_type", "") or "unknown"
    architectures = list(getattr(config, "architectures", None) or [])
    # The classes the checkpoint was saved from say what it is (an encoder's type may also have a
    # causal head in transformers); a GGUF file's config lists none, so its type decides.
    causal = {name for names in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.values() for name in ([names] if isinstance(names, str) else names)}
    if not (set(architectures) & causal if architectures else model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES):
        architectures = ", ".join(architectures) or "no architectures listed"
        raise CheckpointProblem(f"{path}: a {model_type} model ({architectures}), not a causal language model transformers can generate with")
    return f"{model_type} causal LM, {'GGUF file' if files.gguf_file else 'checkpoint directory'}"
