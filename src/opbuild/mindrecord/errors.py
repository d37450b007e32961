"""MindRecord's exception classes (``mindspore.mindrecord``'s names). Each derives from
:class:`MindRecordException` and from the builtin that fits it, so ``except ValueError`` also works."""

from __future__ import annotations


class MindRecordException(Exception):
    """Base class of the MindRecord errors."""


class ParamValueError(MindRecordException, ValueError):
    """An argument has a bad value."""


class ParamTypeError(MindRecordException, TypeError):
    """An argument has a bad type."""


class MRMInvalidSchemaError(MindRecordException, ValueError):
    """The schema given to ``add_schema`` is not valid."""


class MRMAddSchemaError(MindRecordException, RuntimeError):
    """The schema could not be added (one was added already)."""


class MRMDefineIndexError(MindRecordException, ValueError):
    """An index field is not a scalar field of the schema."""


class MRMValidateDataError(MindRecordException, ValueError):
    """A row given to ``write_raw_data`` does not fit the schema."""


class MRMOpenError(MindRecordException, RuntimeError):
    """A MindRecord file could not be opened (missing, or not a MindRecord file)."""


class MRMCommitError(MindRecordException, RuntimeError):
    """The files could not be written."""


class MRMInvalidHeaderSizeError(MindRecordException, ValueError):
    """``set_header_size`` outside [16 KB, 128 MB]."""


class MRMInvalidPageSizeError(MindRecordException, ValueError):
    """``set_page_size`` outside [32 KB, 256 MB]."""


__all__ = ["MindRecordException", "ParamValueError", "ParamTypeError", "MRMInvalidSchemaError",
           "MRMAddSchemaError", "MRMDefineIndexError", "MRMValidateDataError", "MRMOpenError", "MRMCommitError",
           "MRMInvalidHeaderSizeError", "MRMInvalidPageSizeError"]
