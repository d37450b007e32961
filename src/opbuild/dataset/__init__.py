"""Datasets for training and evaluation, with MindSpore's API (``mindspore.dataset``): sources
(``NumpySlicesDataset``, ``GeneratorDataset``, and the file readers ``MnistDataset``, ``Cifar10Dataset``,
``ImageFolderDataset``), samplers, pipeline operations (``batch``, ``shuffle``, ``map``, ``repeat``, ``take``,
``skip``, ``zip``, ``concat``, ``filter``, ``split``, ``rename``, ``project``), the ``vision`` and
``transforms`` modules, and epoch iterators yielding opbuild Tensors. ``config.set_seed`` seeds every shuffle
(default: the seed of ``opbuild.set_seed``)."""

from __future__ import annotations

from . import audio, config, text, transforms, vision
from .core import BatchDataset, Dataset, DictIterator, MapDataset, ShuffleDataset, TupleIterator
from .extra_nodes import FakeImageDataset, PaddedDataset, zip  # noqa: A004  (MindSpore's ds.zip)
from .minddataset import MindDataset
from .readers import Cifar10Dataset, ImageFolderDataset, MnistDataset
from .samplers import (
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
)
from .schema import Schema
from .sources import GeneratorDataset, NumpySlicesDataset, sample_indices

__all__ = ["config", "Dataset", "BatchDataset", "ShuffleDataset", "MapDataset", "TupleIterator", "DictIterator",
           "NumpySlicesDataset", "GeneratorDataset", "sample_indices", "MnistDataset", "Cifar10Dataset",
           "ImageFolderDataset", "Sampler", "SequentialSampler", "RandomSampler", "DistributedSampler",
           "SubsetSampler", "SubsetRandomSampler", "vision", "transforms", "audio", "text",
           "Schema", "PaddedDataset", "FakeImageDataset", "zip"]
__all__ += ["MindDataset"]
