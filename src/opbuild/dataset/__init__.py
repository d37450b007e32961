"""Datasets for training and evaluation, with MindSpore's API (``mindspore.dataset``): sources
(``NumpySlicesDataset``, ``GeneratorDataset``, and the file readers ``MnistDataset``, ``Cifar10Dataset``,
``ImageFolderDataset``), samplers, pipeline operations (``batch``, ``shuffle``, ``map``, ``repeat``, ``take``,
``skip``, ``zip``, ``concat``, ``filter``, ``split``, ``rename``, ``project``), the ``vision`` and
``transforms`` modules, and epoch iterators yielding opbuild Tensors. ``config.set_seed`` seeds every shuffle
(default: the seed of ``opbuild.set_seed``)."""

from __future__ import annotations

from . import audio, config, text, transforms, vision
from .audio_files import (
    CMUArcticDataset,
    GTZANDataset,
    LibriTTSDataset,
    LJSpeechDataset,
    SpeechCommandsDataset,
    YesNoDataset,
)
from .callbacks import DSCallback, WaitedDSCallback
from .coco_files import CocoDataset
from .core import BatchDataset, Dataset, DictIterator, MapDataset, ShuffleDataset, TupleIterator
from .dataset_cache import DatasetCache, OBSMindDataset, sync_wait_for_dataset
from .deserializer import deserialize
from .detection_files import KITTIDataset, ManifestDataset, VOCDataset, WIDERFaceDataset
from .extra_nodes import FakeImageDataset, PaddedDataset, zip  # noqa: A004  (MindSpore's ds.zip)
from .image_files import Cifar100Dataset, EMnistDataset, FashionMnistDataset, KMnistDataset, QMnistDataset
from .image_folders import (
    Caltech256Dataset,
    CelebADataset,
    CityscapesDataset,
    DIV2KDataset,
    FlickrDataset,
    Food101Dataset,
)
from .iwslt import IWSLT2016Dataset, IWSLT2017Dataset
from .mat_sets import Caltech101Dataset, Flowers102Dataset, SBDataset, SVHNDataset
from .minddataset import MindDataset
from .nlp_files import CLUEDataset, CoNLL2000Dataset, Multi30kDataset, SQuADDataset, UDPOSDataset
from .photo_sets import LFWDataset, LSUNDataset, PhotoTourDataset, SBUDataset
from .random_source import RandomDataset
from .readers import Cifar10Dataset, ImageFolderDataset, MnistDataset
from .samplers import (
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
)
from .samplers_extra import PKSampler, WeightedRandomSampler
from .schema import Schema
from .serialize import compare, serialize, show
from .small_image_files import SemeionDataset, STL10Dataset, USPSDataset
from .sources import GeneratorDataset, NumpySlicesDataset, sample_indices
from .tedlium import TedliumDataset
from .text_corpora import (
    AGNewsDataset,
    AmazonReviewDataset,
    DBpediaDataset,
    EnWik9Dataset,
    IMDBDataset,
    PennTreebankDataset,
    SogouNewsDataset,
    SST2Dataset,
    WikiTextDataset,
    YahooAnswersDataset,
    YelpReviewDataset,
)
from .text_files import CSVDataset, Shuffle, TextFileDataset
from .tfrecord import TFRecordDataset
from .vision_sets import OmniglotDataset, Places365Dataset, RenderedSST2Dataset, SUN397Dataset

__all__ = ["config", "Dataset", "BatchDataset", "ShuffleDataset", "MapDataset", "TupleIterator", "DictIterator",
           "NumpySlicesDataset", "GeneratorDataset", "sample_indices", "MnistDataset", "Cifar10Dataset",
           "ImageFolderDataset", "Sampler", "SequentialSampler", "RandomSampler", "DistributedSampler",
           "SubsetSampler", "SubsetRandomSampler", "vision", "transforms", "audio", "text",
           "Schema", "PaddedDataset", "FakeImageDataset", "zip",
           # files in more of MindSpore's formats, and the samplers that weigh or group rows
           "TextFileDataset", "CSVDataset", "Shuffle", "RandomDataset", "Cifar100Dataset", "FashionMnistDataset",
           "KMnistDataset", "EMnistDataset", "QMnistDataset", "ManifestDataset", "VOCDataset", "CocoDataset",
           "WeightedRandomSampler", "PKSampler", "TFRecordDataset", "DSCallback", "WaitedDSCallback",
           "serialize", "deserialize", "show", "compare", "AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset",
           "SogouNewsDataset", "YahooAnswersDataset", "YelpReviewDataset", "PennTreebankDataset", "WikiTextDataset",
           "EnWik9Dataset", "IMDBDataset", "SST2Dataset", "SemeionDataset", "USPSDataset", "STL10Dataset",
           "YesNoDataset", "DatasetCache", "LJSpeechDataset", "SpeechCommandsDataset", "CelebADataset",
           "Caltech256Dataset", "Food101Dataset", "CoNLL2000Dataset", "UDPOSDataset", "SQuADDataset",
           "Multi30kDataset", "RenderedSST2Dataset", "SUN397Dataset", "OmniglotDataset", "MindDataset",
           "FlickrDataset", "DIV2KDataset", "CMUArcticDataset", "GTZANDataset", "WIDERFaceDataset",
           "OBSMindDataset", "sync_wait_for_dataset", "LibriTTSDataset", "Places365Dataset", "CLUEDataset",
           "CityscapesDataset", "KITTIDataset", "LFWDataset", "SBUDataset", "PhotoTourDataset",
           "SVHNDataset", "Flowers102Dataset", "Caltech101Dataset", "SBDataset", "IWSLT2016Dataset",
           "IWSLT2017Dataset", "TedliumDataset", "LSUNDataset"]
