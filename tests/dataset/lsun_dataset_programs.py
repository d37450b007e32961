"""Programs over ``LSUNDataset`` (the extracted image folders ``<class>_train``/``<class>_val``/``test``),
written once for both frameworks: ``make_files(root)`` writes a tiny tree; ``run(ds, root)`` reads it with
``ds`` = ``mindspore.dataset`` (scripts/record_rare_datasets.py) or ``opbuild.dataset`` (the tests)."""

from __future__ import annotations

from tests.dataset.file_helpers import _write
from tests.dataset.photo_dataset_programs import attempt, png


def make_files(root: str) -> None:
    """Folders of a few images each, some of classes not asked for, one folder that no class names."""
    base = f"{root}/lsun"
    layout = {"classroom_train": ["b.jpg", "a.jpg"], "bedroom_val": ["v1.jpg"], "bedroom_train": ["x.jpg", "y.png"],
              "classroom_val": ["c.jpg"], "tower_train_lmdb": ["t.jpg"], "test": ["z1.jpg", "z0.jpg"],
              "misc": ["m.jpg"]}
    seed = 100
    for folder, names in layout.items():
        for name in names:
            seed += 1
            _write(f"{base}/{folder}/{name}", png(seed, (3, 2, 3)))


def run(ds, root: str) -> dict:
    """name -> rows (or an error's type) of each program."""
    base = f"{root}/lsun"
    return {
        "lsun_all": attempt(lambda: ds.LSUNDataset(base, shuffle=False)),
        "lsun_train": attempt(lambda: ds.LSUNDataset(base, "train", shuffle=False)),
        "lsun_valid_decode": attempt(lambda: ds.LSUNDataset(base, "valid", decode=True, shuffle=False)),
        "lsun_test": attempt(lambda: ds.LSUNDataset(base, "test", shuffle=False)),
        "lsun_classes": attempt(lambda: ds.LSUNDataset(base, "all", ["classroom", "tower"], shuffle=False)),
        "lsun_shard": attempt(lambda: ds.LSUNDataset(base, num_shards=2, shard_id=0, shuffle=False)),
        "lsun_bad_class": attempt(lambda: ds.LSUNDataset(base, classes=["garden"])),
        "lsun_class_str": attempt(lambda: ds.LSUNDataset(base, classes="bedroom")),
        "lsun_bad_usage": attempt(lambda: ds.LSUNDataset(base, "val")),
        "lsun_none": attempt(lambda: ds.LSUNDataset(base, "all", ["kitchen"])),
    }
