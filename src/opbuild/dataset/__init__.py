"""Datasets for training and evaluation, with MindSpore's API (``mindspore.dataset``): sources
(``NumpySlicesDataset``, ``GeneratorDataset``), pipeline operations (``batch``, ``shuffle``, ``map``) and
epoch iterators yielding opbuild Tensors. ``config.set_seed`` seeds every shuffle (default: the seed of
``opbuild.set_seed``)."""

from __future__ import annotations

from . import config
from .core import BatchDataset, Dataset, DictIterator, MapDataset, ShuffleDataset, TupleIterator
from .sources import GeneratorDataset, NumpySlicesDataset, sample_indices

__all__ = ["config", "Dataset", "BatchDataset", "ShuffleDataset", "MapDataset", "TupleIterator", "DictIterator",
           "NumpySlicesDataset", "GeneratorDataset", "sample_indices"]
