"""``mindspore.experimental``: ``optim`` (torch-style optimizers and ``optim.lr_scheduler``). MindSpore's
``MapParameter`` (a hash-table parameter for sparse embeddings) is not provided."""

from . import optim

__all__ = ["optim"]
