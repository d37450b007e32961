"""``train.ConvertNetUtils``: swap a network's trainable Dense, Embedding and EmbeddingLookup layers for their
THOR forms (``nn.DenseThor``, ``nn.EmbeddingThor``, ``nn.EmbeddingLookupThor``), which also keep the input
statistics MindSpore's second-order optimizer ``thor`` uses.

The new layers keep the old ones' parameters (the same Parameter objects, under the same names) and the Dense
activation. Differences from MindSpore 2.10, whose CPU cannot run the result (tests/train/
test_train_observers.py): the THOR Dense layers compute in float32 (MindSpore casts them to float16 except on
GPU, and its CPU then fails at the next float32 layer); EmbeddingLookup converts (MindSpore raises
AttributeError reading ``vocab_cache_size``); a trainable Conv2d raises NotImplementedError (opbuild has no
``Conv2dThor``, which MindSpore's CPU cannot run either).
"""

from __future__ import annotations

from typing import Any

from ..nn import layers as nn
from ..nn.cell import Cell
from ..nn.container import SequentialCell

# Cells left as they are, and not searched: MindSpore's list.
_KEPT = (nn.Conv2dTranspose, nn.Conv1d, nn.Conv1dTranspose, nn.BatchNorm1d, nn.GroupNorm, nn.LayerNorm,
         nn.BatchNorm2d, nn.MaxPool2d, nn.DenseThor, nn.EmbeddingThor, nn.EmbeddingLookupThor)


def _dense(cell: Any) -> Any:
    act = type(cell.activation).__name__.lower() if cell.activation is not None else None
    new = nn.DenseThor(cell.in_channels, cell.out_channels, weight_init=cell.weight, has_bias=cell.has_bias,
                       bias_init="zeros", activation="fast_gelu" if act == "fastgelu" else act)
    new.weight = cell.weight
    if cell.has_bias:
        new.bias = cell.bias
    return new


def _embedding(cell: Any) -> Any:
    new = nn.EmbeddingThor(cell.vocab_size, cell.embedding_size, use_one_hot=False)
    new.embedding_table = cell.embedding_table
    return new


def _embedding_lookup(cell: Any) -> Any:
    new = nn.EmbeddingLookupThor(cell.vocab_size, cell.embedding_size, target=cell.target, sparse=cell.sparse)
    new.embedding_table = cell.embedding_table
    return new


def _conv2d(cell: Any) -> Any:
    raise NotImplementedError(
        f"ConvertNetUtils: the trainable Conv2d {cell.param_prefix or type(cell).__name__!r} would become a "
        "Conv2dThor, which opbuild does not provide (MindSpore's CPU cannot run it either); freeze its weight "
        "(requires_grad=False) to keep it as it is")


class ConvertNetUtils:
    """``ConvertNetUtils()``: :meth:`convert_to_thor_net` converts a network in place for THOR."""

    def __init__(self) -> None:
        self._convert = {nn.Dense: _dense, nn.Embedding: _embedding, nn.Conv2d: _conv2d,
                         nn.EmbeddingLookup: _embedding_lookup}

    @staticmethod
    def _needs_change(cell: Any, prefix: str) -> bool:
        if isinstance(cell, (nn.Dense, nn.Conv2d)) and cell.weight.requires_grad:
            low = prefix.lower()
            return "rpn_with_loss.rpn_convs_list." not in low and "wide" not in low
        return isinstance(cell, (nn.Embedding, nn.EmbeddingLookup)) and cell.embedding_table.requires_grad

    def convert_to_thor_net(self, net: Cell) -> None:
        """Replace, in place and recursively, each trainable Dense/Embedding/EmbeddingLookup of ``net`` (not
        under a name holding ``wide`` or ``rpn_with_loss.rpn_convs_list.``) by its THOR layer."""
        if not isinstance(net, Cell):
            raise TypeError(f"ConvertNetUtils.convert_to_thor_net: net must be a Cell, got {type(net).__name__}")
        net.update_cell_prefix()
        self._convert_cells(net)

    def _convert_cells(self, net: Cell) -> None:
        changed = False
        for name, cell in list(net.name_cells().items()):
            if cell is net or isinstance(cell, _KEPT):
                continue
            convert = self._convert.get(type(cell))
            if convert is None:
                self._convert_cells(cell)
                continue
            prefix = cell.param_prefix
            if self._needs_change(cell, prefix):
                new = convert(cell)
                net.insert_child_to_cell(name, new)
                new.update_parameters_name(prefix + ".")  # after: inserting names them from ``net`` only
                changed = True
        if changed and isinstance(net, SequentialCell):
            net.cell_list = list(net.cells())


class ConvertModelUtils:
    """``ConvertModelUtils.convert_to_thor_model(model, network, ...)``: MindSpore swaps a ``Model`` for its
    THOR training model only when ``optimizer`` is its Ascend or GPU THOR optimizer; on the CPU (MindSpore's
    too) the model is returned as it is, so training scripts that call it run unchanged."""

    @staticmethod
    def convert_to_thor_model(model: Any, network: Cell, loss_fn: Any = None, optimizer: Any = None,
                              metrics: Any = None, amp_level: str = "O0", loss_scale_manager: Any = None,
                              keep_batchnorm_fp32: bool = False) -> Any:
        """Return ``model`` (no THOR optimizer runs on the CPU)."""
        return model
