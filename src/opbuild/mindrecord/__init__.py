"""MindSpore's MindRecord format (``mindspore.mindrecord``): :class:`FileWriter` writes rows to MindRecord
files (a paged data file plus a SQLite ``.db`` index per shard), :class:`FileReader` reads them back. The files
are interchangeable with MindSpore 2.x's: each reads the other's. ``opbuild.dataset.MindDataset`` reads them
into a dataset pipeline. See docs/mindrecord.md for what is and is not covered."""

from __future__ import annotations

from .csv_to_mr import CsvToMR
from .errors import (
    MindRecordException,
    MRMAddSchemaError,
    MRMCommitError,
    MRMDefineIndexError,
    MRMInvalidHeaderSizeError,
    MRMInvalidPageSizeError,
    MRMInvalidSchemaError,
    MRMOpenError,
    MRMValidateDataError,
    ParamTypeError,
    ParamValueError,
)
from .filereader import FileReader
from .filewriter import FAILED, SUCCESS, FileWriter
from .image_to_mr import Cifar10ToMR, Cifar100ToMR, MnistToMR
from .imagenet_to_mr import ImageNetToMR
from .mindpage import MindPage, MRMDefineCategoryError

__all__ = ["FileWriter", "FileReader", "SUCCESS", "FAILED", "MindRecordException", "ParamValueError",
           "ParamTypeError", "MRMInvalidSchemaError", "MRMAddSchemaError", "MRMDefineIndexError",
           "MRMValidateDataError", "MRMOpenError", "MRMCommitError", "MRMInvalidHeaderSizeError",
           "MRMInvalidPageSizeError", "CsvToMR", "MnistToMR",
           "Cifar10ToMR", "Cifar100ToMR", "ImageNetToMR", "MindPage",
           "MRMDefineCategoryError"]
