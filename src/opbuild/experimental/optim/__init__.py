"""``mindspore.experimental.optim``: torch-style optimizers (each a Cell called with the gradients) and
``lr_scheduler``."""

from . import lr_scheduler
from .adaptive import ASGD, Adadelta, Adagrad, Adamax, NAdam, RAdam, RMSprop, Rprop
from .optimizer import Optimizer
from .torch_style import SGD, Adam, AdamW

__all__ = ["Optimizer", "AdamW", "SGD", "Adam", "Adadelta", "Adagrad", "ASGD", "Adamax", "RMSprop", "Rprop",
           "RAdam", "NAdam", "lr_scheduler"]
