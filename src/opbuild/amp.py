"""Mixed precision, MindSpore's ``mindspore.amp``: ``auto_mixed_precision(network, amp_level, dtype)``.

Built on ``Cell.to_float`` (nn/cell.py): inside a cell with a compute dtype every op's float inputs and
Parameters are cast to it (ops/primitive.py); Parameters stay float32 master weights and receive float32
gradients through Cast's gradient. The levels, as MindSpore defines them:

- ``O0``: unchanged.
- ``O1``: the white list (Conv1d/2d/3d and their transposes, Dense, the LSTM/RNN/GRU cells) computes in
  ``dtype``.
- ``O2``: everything computes in ``dtype`` except the black list (BatchNorm1d/2d/3d, LayerNorm), kept in
  float32.
- ``O3``: everything in ``dtype``.

For O1-O3 the network's float outputs are cast back to float32, so a loss applied to them (``Model``,
``WithLossCell``) computes in float32.

Training: :func:`build_train_network` (what ``Model`` uses) applies a level's precision and wraps the network
with its loss and optimizer, with loss scaling where a ``LossScaleManager`` asks for it; the managers, the
functional scalers and ``all_finite`` come from loss_scale.py (nn/loss_scale.py holds the train cell).
"""

from __future__ import annotations

from typing import Any

from .core.dtypes import dtype_of
from .loss_scale import (
    DynamicLossScaleManager,
    DynamicLossScaler,
    FixedLossScaleManager,
    LossScaleManager,
    LossScaler,
    StaticLossScaler,
    _grad_scale_map,  # noqa: F401 - public in mindspore.amp (custom LossScaler subclasses import them)
    _grad_unscale_map,  # noqa: F401
    all_finite,
    init_status,
)
from .nn.cell import Cell, outputs_to_float32
from .nn.layers.basic import Dense
from .nn.layers.conv import Conv1d, Conv2d, Conv2dTranspose
from .nn.layers.conv1d_transpose import Conv1dTranspose
from .nn.layers.norm_more import BatchNorm3d
from .nn.layers.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .nn.layers.rnn_cells import GRUCell, LSTMCell, RNNCell
from .nn.layers.volumetric import Conv3d, Conv3dTranspose
from .nn.loss_scale import TrainOneStepWithLossScaleCell
from .nn.wrap import TrainOneStepCell, WithLossCell

AMP_LEVELS = ("O0", "O1", "O2", "O3")


def get_white_list() -> list[type]:
    """The cells O1 runs in low precision, in MindSpore 2.10's order. MindSpore's list goes on with primitive
    classes (Conv2D, MatMul, ReLU ...) that its O1 casts op by op; opbuild's O1 works on cells, so they are
    not listed."""
    return [Conv1d, Conv2d, Conv3d, Conv1dTranspose, Conv2dTranspose, Conv3dTranspose, Dense, LSTMCell, RNNCell,
            GRUCell]


def get_black_list() -> list[type]:
    """The cells O2 keeps in float32 (MindSpore 2.10's list and order)."""
    return [BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm]


class _OutputTo32(Cell):
    """Runs ``network`` and casts its float outputs to float32 (MindSpore's _OutputTo32)."""

    def __init__(self, network: Cell) -> None:
        super().__init__()
        self._backbone = network

    def construct(self, *args):
        return outputs_to_float32(self._backbone(*args))


def auto_mixed_precision(network: Cell, amp_level: str = "O0", dtype=None) -> Cell:
    """Return ``network`` set up for mixed precision at ``amp_level`` (see the module docstring); ``dtype``
    is float16 (default) or bfloat16. ValueError for another level."""
    if amp_level not in AMP_LEVELS:
        raise ValueError(f"auto_mixed_precision: amp_level must be one of {', '.join(AMP_LEVELS)}, got {amp_level!r}")
    low = dtype_of(dtype if dtype is not None else "float16").name
    if low not in ("float16", "bfloat16"):
        raise ValueError(f"auto_mixed_precision: dtype must be float16 or bfloat16, got {low}")
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        white = tuple(get_white_list())
        for _, cell in network.cells_and_names():
            if isinstance(cell, white):  # computed in low precision, results back in float32 (MindSpore O1)
                cell.to_float(low)
                object.__setattr__(cell, "_amp_output_float32", True)
    else:
        network.to_float(low)
        if amp_level == "O2":
            black = tuple(get_black_list())
            for _, cell in network.cells_and_names():
                if isinstance(cell, black):
                    cell.to_float("float32")
    return _OutputTo32(network)



def _cell_classes(name: str, classes: Any) -> tuple[type, ...]:
    if not isinstance(classes, list):
        raise TypeError(f"custom_mixed_precision: {name} must be a list of Cell classes, got "
                        f"{type(classes).__name__}")
    for c in classes:
        if not (isinstance(c, type) and issubclass(c, Cell)):
            raise TypeError(f"custom_mixed_precision: {name} holds {c!r}; opbuild applies precision per Cell, so "
                            f"list Cell classes (such as nn.Dense), not primitives")
    return tuple(classes)


def custom_mixed_precision(network: Cell, *, white_list: list | None = None, black_list: list | None = None,
                           dtype=None) -> Cell:
    """Mixed precision with your own list (``mindspore.amp.custom_mixed_precision``): with ``white_list``,
    the cells of those classes compute in ``dtype`` and give float32 results (as O1 does with its list); with
    ``black_list``, everything computes in ``dtype`` except the cells of those classes (as O2), the network's
    float outputs cast to float32. Give exactly one list; ``dtype`` is float16 (default) or bfloat16."""
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must be provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be provided at the same "
                         "time, please provide one or the other.")
    low = dtype_of(dtype if dtype is not None else "float16").name
    if low not in ("float16", "bfloat16"):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got "
                         f"{dtype_of(low)}.")
    if white_list is not None:
        white = _cell_classes("white_list", white_list)
        for _, cell in network.cells_and_names():
            if isinstance(cell, white):
                cell.to_float(low)
                object.__setattr__(cell, "_amp_output_float32", True)
        return network
    black = _cell_classes("black_list", black_list)
    network.to_float(low)
    for _, cell in network.cells_and_names():
        if isinstance(cell, black):
            cell.to_float("float32")
    return _OutputTo32(network)

# MindSpore's per-level defaults of build_train_network (train/amp.py ``_config_level``). O2's default manager
# is a DynamicLossScaleManager, as on MindSpore's GPU and Ascend targets: MindSpore's CPU target refuses a
# manager with an update cell (its train step needs control flow there), while opbuild's skip of an overflowed
# step is graph arithmetic (nn/loss_scale.py), so every level trains on the CPU as MindSpore's GPU build does.
_LEVEL_CONFIG: dict[str, dict[str, Any]] = {
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": "float32", "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": "float32", "loss_scale_manager": None},
    "O2": {"keep_batchnorm_fp32": True, "cast_model_type": "float16", "loss_scale_manager": "dynamic"},
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": "float16", "loss_scale_manager": None},
}


class _AmpWithLossCell(Cell):
    """The loss cell of a float16 network: its outputs and the label are cast to float32 before the loss
    (MindSpore's build_train_network ``WithLossCell``)."""

    def __init__(self, backbone: Cell, loss_fn: Any) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(outputs_to_float32(self._backbone(data)), outputs_to_float32(label))


def _amp_config(level: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    unknown = set(kwargs) - {"cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"}
    if unknown:
        raise ValueError(f"build_train_network: unsupported argument(s) {sorted(unknown)}; expected "
                         "cast_model_type, keep_batchnorm_fp32, loss_scale_manager")
    config = dict(_LEVEL_CONFIG[level])
    if config["loss_scale_manager"] == "dynamic":
        config["loss_scale_manager"] = DynamicLossScaleManager()
    config.update(kwargs)
    cast = dtype_of(config["cast_model_type"]).name if config["cast_model_type"] is not None else None
    if cast not in ("float16", "float32"):
        raise TypeError(f"build_train_network: cast_model_type must be float16 or float32, got "
                        f"{config['cast_model_type']!r}")
    config["cast_model_type"] = cast
    if not isinstance(config["keep_batchnorm_fp32"], bool):
        raise TypeError(f"build_train_network: keep_batchnorm_fp32 must be a bool, got "
                        f"{config['keep_batchnorm_fp32']!r}")
    manager = config["loss_scale_manager"]
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(f"build_train_network: loss_scale_manager must be a LossScaleManager (FixedLossScaleManager, "
                        f"DynamicLossScaleManager) or None, got {type(manager).__name__}")
    return config


def build_train_network(network: Cell, optimizer: Cell, loss_fn: Any = None, level: str = "O0",
                        boost_level: str = "O0", **kwargs: Any) -> Cell:
    """MindSpore's ``amp.build_train_network``: the train step of ``network`` + ``loss_fn`` + ``optimizer`` at
    mixed-precision ``level``, whose defaults ``kwargs`` (``cast_model_type``, ``keep_batchnorm_fp32``,
    ``loss_scale_manager``) override:

    - O0/O1: float32 network (O1 through :func:`auto_mixed_precision`), no loss scale;
    - O2: ``network.to_float(float16)`` with BatchNorm/LayerNorm kept in float32, ``DynamicLossScaleManager()``;
    - O3: ``network.to_float(float16)``, no loss scale.

    With a float16 network the loss computes in float32 (outputs and label cast). A manager with an update
    cell gives ``TrainOneStepWithLossScaleCell``, otherwise ``TrainOneStepCell(network, optimizer,
    sens=loss_scale)``. The network's cells are converted in place, so an evaluation network built on
    ``network`` computes in the same precision. ``level='auto'`` is refused, as MindSpore does on the CPU."""
    if getattr(optimizer, "parameters", None) is None or not isinstance(optimizer, Cell):
        raise TypeError(f"build_train_network: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
    if level not in AMP_LEVELS:
        raise ValueError(f"build_train_network: level must be one of {', '.join(AMP_LEVELS)} ('auto' picks a "
                         f"level on GPU and Ascend only), got {level!r}")
    if boost_level != "O0":
        raise ValueError(f"build_train_network: boost_level {boost_level!r} is not supported; use 'O0'")
    config = _amp_config(level, kwargs)
    if config["cast_model_type"] == "float16":
        network.to_float("float16")
        if config["keep_batchnorm_fp32"]:
            black = tuple(get_black_list())
            for _, cell in network.cells_and_names():
                if isinstance(cell, black):
                    cell.to_float("float32")
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float("float16")
    elif level in ("O2", "O3"):
        pass  # cast_model_type=float32 overrides the level: the network stays float32
    else:
        network = auto_mixed_precision(network, level)
    if loss_fn is not None:
        network = (_AmpWithLossCell(network, loss_fn) if config["cast_model_type"] == "float16"
                   else WithLossCell(network, loss_fn))
    manager = config["loss_scale_manager"]
    loss_scale = 1.0
    if manager is not None:
        loss_scale = float(manager.get_loss_scale())
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
    return TrainOneStepCell(network, optimizer, loss_scale).set_train()


__all__ = ["auto_mixed_precision", "custom_mixed_precision", "build_train_network", "get_white_list",
           "get_black_list", "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaler",
           "StaticLossScaler", "DynamicLossScaler", "all_finite", "init_status"]
