"""The cross-encoder: few-step training writes a checkpoint the app loads; scoring runs on the CPU
when there is no GPU (CI never has one)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command

from retrieval.rankers import Candidate
from retrieval.rankers.config import ranker_config
from retrieval.rankers.cross_encoder import cross_encoder_load, encode_pairs, pick_device
from retrieval.rankers.load import ranker_get
from retrieval.rankers.neural import NeuralRanker
from tests.retrieval.wowpp_files import write_wowpp
from tests.settings_read import settings_read

CANDIDATES = [Candidate("Jazz", "Jazz is characterised by swing and improvisation."), Candidate("Tea", "Tea is a drink.")]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkpoint from two training steps: enough to prove the round trip, not to rank well."""
    tmp = tmp_path_factory.mktemp("reranker")
    out = StringIO()
    call_command("train_reranker", "--wowpp", str(write_wowpp(tmp / "train.json")), "--out", str(tmp / "ckpt"),
                 "--max-steps", "2", "--batch-size", "4", "--max-length", "32", "--device", "cpu", stdout=out)
    (tmp / "stdout.txt").write_text(out.getvalue())
    return tmp / "ckpt"


def test_train_reranker_prints_the_loss_per_epoch_and_saves_a_checkpoint(checkpoint: Path) -> None:
    printed = (checkpoint.parent / "stdout.txt").read_text()
    meta = json.loads((checkpoint / "reranker.json").read_text())

    assert "Training on 12 pairs (4 relevant) from 4 contexts." in printed
    assert "epoch 1: loss " in printed
    assert (meta["trained"], meta["steps"], meta["max_length"], meta["device"]) == (True, 2, 32, "cpu")
    assert {"head.pt", "config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in checkpoint.iterdir()}


def test_the_checkpoint_loads_and_scores_on_the_cpu(checkpoint: Path) -> None:
    ranker = NeuralRanker(checkpoint=checkpoint, device="cpu", batch_size=1)

    scores = ranker.score(["Do you like jazz?"], CANDIDATES)

    assert ranker.trained and ranker.device.type == "cpu"
    assert scores.shape == (2,) and np.isfinite(scores).all()
    # Batching and the longest-first order must not change a score.
    assert np.allclose(NeuralRanker(checkpoint=checkpoint, device="cpu", batch_size=8).score(["Do you like jazz?"], CANDIDATES), scores, atol=1e-5)


def test_the_checkpoint_keeps_its_trained_head(checkpoint: Path) -> None:
    trained, _, _ = cross_encoder_load(checkpoint)
    fresh, _, _ = cross_encoder_load(None)

    assert not np.allclose(trained.head.weight.detach().numpy(), fresh.head.weight.detach().numpy())


def test_auto_picks_cuda_only_when_there_is_one() -> None:
    import torch

    assert pick_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert pick_device("cpu").type == "cpu"


def test_pairs_keep_the_recent_context_and_the_start_of_the_sentence() -> None:
    _, tokenizer, _ = cross_encoder_load(None)
    context = ["an old turn " * 40, "the latest turn"]
    ((ids, types),) = encode_pairs(tokenizer, context, [Candidate("T", "word " * 100)], max_length=48)

    text = tokenizer.decode(ids)
    assert len(ids) == len(types) == 48
    assert text.startswith("[CLS]") and "the latest turn [SEP] t : word" in text
    assert types[0] == 0 and types[-1] == 1


def test_hybrid_and_neural_come_from_the_same_loaded_model(checkpoint: Path) -> None:
    neural = ranker_get("neural", checkpoint=checkpoint, device="cpu")
    hybrid = ranker_get("hybrid", checkpoint=checkpoint, device="cpu")

    assert hybrid.neural is neural
    assert hybrid.score(["Do you like jazz?"], CANDIDATES).shape == (2,)


def test_eval_ranker_runs_the_neural_ranker_from_a_checkpoint(checkpoint: Path, tmp_path: Path) -> None:
    out = StringIO()
    call_command("eval_ranker", "--wowpp", str(write_wowpp(tmp_path / "w.json")), "--ranker", "hybrid",
                 "--checkpoint", str(checkpoint), "--device", "cpu", "--json", stdout=out, stderr=StringIO())

    assert json.loads(out.getvalue())["n"] == 3


def test_train_reranker_refuses_an_unreadable_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")

    with pytest.raises(CommandError, match="expected a JSON object"):
        call_command("train_reranker", "--wowpp", str(bad), "--out", str(tmp_path / "o"), stdout=StringIO())


def test_the_live_ranker_needs_a_checkpoint_for_neural(settings) -> None:
    settings.RANKER, settings.RERANKER_CHECKPOINT = "neural", ""

    with pytest.raises(ImproperlyConfigured, match="needs GROUNDWORK_RERANKER_CHECKPOINT"):
        ranker_config()


def test_the_live_ranker_is_hybrid_once_a_checkpoint_is_configured(settings, checkpoint: Path) -> None:
    settings.RANKER, settings.RERANKER_CHECKPOINT = "", str(checkpoint)

    assert ranker_config().ranker == "hybrid"


@pytest.mark.parametrize(("name", "value"), [("GROUNDWORK_RANKER", "bm25"), ("GROUNDWORK_RERANK_DEVICE", "tpu"),
                                             ("GROUNDWORK_RERANK_BATCH", "lots"), ("GROUNDWORK_RERANK_HYBRID_WEIGHT", "1.5")])
def test_a_bad_setting_stops_the_start_up_naming_its_variable(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=f"{name}="):
        settings_read(monkeypatch, **{name: value})


def test_a_checkpoint_that_is_not_one_is_named_when_the_ranker_loads(settings, tmp_path: Path) -> None:
    settings.RERANKER_CHECKPOINT = str(tmp_path / "nope")

    with pytest.raises(ImproperlyConfigured, match="GROUNDWORK_RERANKER_CHECKPOINT=.*is not a train_reranker checkpoint"):
        ranker_config()
