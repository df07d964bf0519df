"""The dataset card of a Hugging Face export, checked offline as the libraries check it: the YAML
parses into huggingface_hub's DatasetCardData, `datasets` reads its configs (data_files rules) and
its dataset_info, and the size category and languages are among the values `datasets` ships."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

# Hub licence identifiers the exports use (huggingface.co/docs/hub/repositories-licenses).
LICENSES = {"cc-by-sa-4.0", "other"}


def assert_valid_card(folder: Path, task_categories: tuple[str, ...] = ("text-generation",)) -> DatasetCardData:
    card = DatasetCard.load(folder / "README.md")  # ValueError for YAML that is no mapping
    data = card.data
    resources = Path(datasets.__file__).parent / "utils" / "resources"
    assert data.license in LICENSES, data.license
    assert len(data.size_categories) == 1
    assert set(data.size_categories) <= set(json.loads((resources / "size_categories.json").read_text()))
    assert data.language and set(data.language) <= set(json.loads((resources / "languages.json").read_text()))
    assert data.task_categories == list(task_categories) and data.pretty_name
    configs = MetadataConfigs.from_dataset_card_data(data)  # raises for data_files that break the rules
    infos = DatasetInfosDict.from_dataset_card_data(data)
    assert set(infos) == set(configs)
    for name, config in configs.items():
        for entry in config["data_files"]:
            assert list(folder.glob(entry["path"])), entry
        loaded = datasets.load_dataset(str(folder), name, cache_dir=str(folder.parent / f".cache-{name}"))
        for split, table in loaded.items():
            assert table.features == infos[name].features, (name, split)
            assert infos[name].splits[split].num_examples == table.num_rows
    assert "## Citation of the original dataset" in card.text
    return data
