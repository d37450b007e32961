"""``ModelCheckpoint`` + ``CheckpointConfig``: save the train network's parameters as MindSpore ``.ckpt``
files named ``{prefix}-{epoch}_{step}.ckpt`` (step within the epoch) every N steps or seconds and at the end of
training, keeping at most ``keep_checkpoint_max`` files of this prefix."""

from __future__ import annotations

import os
import re
import time
from typing import Any

from ...communication import auto_parallel, management
from ._callback import Callback, RunContext
from ._monitors import step_in_epoch

_APPEND_INFO_NAMES = ("epoch_num", "step_num")


def _optional_non_negative_int(name: str, value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"CheckpointConfig: {name} must be an int >= 0 or None, got {value!r}")
    return value


class CheckpointConfig:
    """``CheckpointConfig(save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
    keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
    append_info=None, enc_key=None, enc_mode='AES-GCM', exception_save=False)``.

    Saving is every ``save_checkpoint_steps`` steps, or (when that is 0) every ``save_checkpoint_seconds``;
    both 0 is a ValueError. ``keep_checkpoint_max`` bounds the files kept (the oldest go first); when it is 0,
    ``keep_checkpoint_per_n_minutes`` keeps one file per N minutes; both 0 is a ValueError. ``saved_network``
    saves that Cell instead of the train network; ``append_info`` lists "epoch_num", "step_num" and/or a dict
    of extra ``{name: value}`` entries. Encryption and ``exception_save`` are not supported.

    In a data-parallel job (``ParallelMode.DATA_PARALLEL`` with more than one rank) every rank holds the same
    bit-identical weights, so ``ModelCheckpoint`` saves on rank 0 only; ``save_all_ranks=True`` (opbuild's
    keyword, in MindSpore's ``**kwargs``) makes every rank save, as MindSpore does, and then each rank needs its
    own ``directory`` (MindSpore's idiom: ``directory=f"./ckpt_{get_rank()}"``).
    """

    def __init__(self, save_checkpoint_steps: int | None = 1, save_checkpoint_seconds: int | None = 0,
                 keep_checkpoint_max: int | None = 5, keep_checkpoint_per_n_minutes: int | None = 0,
                 integrated_save: bool = True, async_save: bool = False, saved_network: Any = None,
                 append_info: list | None = None, enc_key: bytes | None = None, enc_mode: str = "AES-GCM",
                 exception_save: bool = False, **kwargs: Any) -> None:
        steps = _optional_non_negative_int("save_checkpoint_steps", save_checkpoint_steps)
        seconds = _optional_non_negative_int("save_checkpoint_seconds", save_checkpoint_seconds)
        keep_max = _optional_non_negative_int("keep_checkpoint_max", keep_checkpoint_max)
        keep_minutes = _optional_non_negative_int("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)
        if not steps and not seconds:
            raise ValueError("CheckpointConfig: save_checkpoint_steps and save_checkpoint_seconds can not both be "
                             "0 or None: nothing would ever be saved")
        if not keep_max and not keep_minutes:
            raise ValueError("CheckpointConfig: keep_checkpoint_max and keep_checkpoint_per_n_minutes can not "
                             "both be 0 or None")
        if enc_key is not None:
            raise NotImplementedError("CheckpointConfig: encrypted checkpoints (enc_key) are not supported")
        if exception_save:
            raise NotImplementedError("CheckpointConfig: exception_save is not supported")
        save_all_ranks = kwargs.pop("save_all_ranks", False)
        if not isinstance(save_all_ranks, bool):
            raise TypeError(f"CheckpointConfig: save_all_ranks must be a bool, got {save_all_ranks!r}")
        if kwargs:
            raise TypeError(f"CheckpointConfig: unexpected arguments {sorted(kwargs)}")
        if saved_network is not None and not hasattr(saved_network, "parameters_and_names"):
            raise TypeError(f"CheckpointConfig: saved_network must be a Cell, got {type(saved_network).__name__}")
        # As in MindSpore: steps take precedence over seconds, a count over minutes.
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = 0 if steps else seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = 0 if keep_max else keep_minutes
        self._integrated_save = bool(integrated_save)
        self._async_save = bool(async_save)
        self._saved_network = saved_network
        self._append_info = self._check_append_info(append_info)
        self._enc_mode = enc_mode
        self._save_all_ranks = save_all_ranks

    @staticmethod
    def _check_append_info(append_info: list | None) -> list:
        if append_info is None:
            return []
        if not isinstance(append_info, list):
            raise TypeError(f"CheckpointConfig: append_info must be a list, got {type(append_info).__name__}")
        for item in append_info:
            if isinstance(item, str) and item not in _APPEND_INFO_NAMES:
                raise ValueError(f"CheckpointConfig: append_info names must be one of {_APPEND_INFO_NAMES}, "
                                 f"got {item!r}")
            if not isinstance(item, (str, dict)):
                raise TypeError(f"CheckpointConfig: append_info items must be str or dict, got {item!r}")
        return list(append_info)

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps, doc="Steps between saves.")
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds, doc="Seconds between saves.")
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max, doc="Most files kept.")
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes,
                                             doc="Keep one file per this many minutes.")
    integrated_save = property(lambda self: self._integrated_save, doc="Passed to save_checkpoint.")
    async_save = property(lambda self: self._async_save, doc="Write checkpoints in a background thread.")
    saved_network = property(lambda self: self._saved_network, doc="The Cell to save (None: train network).")
    append_info = property(lambda self: list(self._append_info), doc="Extra entries of every file.")
    enc_mode = property(lambda self: self._enc_mode, doc="Accepted for compatibility.")
    save_all_ranks = property(lambda self: self._save_all_ranks,
                              doc="Whether every rank of a data-parallel job saves (False: rank 0 only).")


def _checkpoint_order(prefix: str, name: str) -> tuple[int, int, str] | None:
    """(epoch, step, name) of a file ``{prefix}-{epoch}_{step}.ckpt``, None for any other file. Files are
    ordered by the epoch and step in their names, the order they were saved in, because modification times
    of files saved within one clock tick tie."""
    match = re.fullmatch(re.escape(prefix) + r"-(\d+)_(\d+)\.ckpt", name)
    return (int(match.group(1)), int(match.group(2)), name) if match else None


def unique_prefix(directory: str, prefix: str) -> str:
    """MindSpore's rule for a prefix already used in ``directory``: ``prefix`` when no ``prefix-*.ckpt`` or
    ``prefix_N-*.ckpt`` file exists, else ``prefix_M`` with M one more than the largest N (a lone ``prefix``
    counts as N = 0), so a second run never overwrites or deletes the first run's checkpoints."""
    used = -1
    pattern = re.compile(re.escape(prefix) + r"(?:_(\d+))?-.*\.ckpt")
    for name in os.listdir(directory):
        match = pattern.fullmatch(name)
        if match:
            used = max(used, int(match.group(1) or 0))
    return prefix if used < 0 else f"{prefix}_{used + 1}"


class ModelCheckpoint(Callback):
    """``ModelCheckpoint(prefix='CKP', directory=None, config=None)``: saves checkpoints while training.

    ``directory`` (created if missing; None: the current directory) receives ``{prefix}-{epoch}_{step}.ckpt``
    through ``opbuild.save_checkpoint`` (atomic writes). When files of ``prefix`` already exist there, the
    prefix becomes ``prefix_1``, ``prefix_2``, ... as in MindSpore. The last step is saved at the end of
    training. ``latest_ckpt_file_name`` is the path of the newest file. MindSpore's ``-graph.meta`` file is not
    written: opbuild has no serialized graph format.
    """

    def __init__(self, prefix: str = "CKP", directory: str | os.PathLike | None = None,
                 config: CheckpointConfig | None = None) -> None:
        super().__init__()
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file name prefix, got {prefix!r}")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got {type(config).__name__}")
        self._directory = os.path.abspath(os.fspath(directory) if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._prefix = unique_prefix(self._directory, prefix)
        self._config = config
        self._last_triggered_step = 0
        self._last_time = time.monotonic()
        self._last_time_for_keep = time.monotonic()
        self._latest_ckpt_file_name: str | None = None
        self._kept_for_period: str | None = None

    @property
    def latest_ckpt_file_name(self) -> str | None:
        """The path of the newest checkpoint saved by this callback."""
        return self._latest_ckpt_file_name

    def on_train_begin(self, run_context: RunContext) -> None:
        self._last_triggered_step = 0
        self._last_time = time.monotonic()

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Save when ``save_checkpoint_steps`` steps (or seconds) have passed since the last save."""
        self._save(run_context.original_args(), force=False)

    def on_train_end(self, run_context: RunContext) -> None:
        """Save the last step, unless it was just saved."""
        self._save(run_context.original_args(), force=True)

    def _due(self, cb_params: Any, force: bool) -> bool:
        if force:
            return True
        if self._config.save_checkpoint_steps:
            return cb_params.cur_step_num >= self._last_triggered_step + self._config.save_checkpoint_steps
        now = time.monotonic()
        if now - self._last_time > self._config.save_checkpoint_seconds:
            self._last_time = now
            return True
        return False

    def _own_files(self) -> list[str]:
        found = (_checkpoint_order(self._prefix, name) for name in os.listdir(self._directory))
        return [order[2] for order in sorted(o for o in found if o is not None)]

    def _make_room(self) -> None:
        """Delete files so that the one about to be saved keeps the count at ``keep_checkpoint_max``; under
        ``keep_checkpoint_per_n_minutes``, the newest file is dropped unless it is the one kept for its
        period (each period keeps its first file)."""
        files = self._own_files()
        keep_max = self._config.keep_checkpoint_max
        if keep_max:
            for name in files[:max(0, len(files) - keep_max + 1)]:
                os.remove(os.path.join(self._directory, name))
        elif files and files[-1] != self._kept_for_period:
            os.remove(os.path.join(self._directory, files[-1]))

    def _mark_kept(self, name: str) -> None:
        now = time.monotonic()
        if self._kept_for_period is None or now - self._last_time_for_keep >= \
                self._config.keep_checkpoint_per_n_minutes * 60:
            self._kept_for_period = name
            self._last_time_for_keep = now

    def _append_dict(self, cb_params: Any) -> dict[str, Any] | None:
        extra: dict[str, Any] = {}
        for item in self._config.append_info:
            if item == "epoch_num":
                extra["epoch_num"] = int(cb_params.cur_epoch_num)
            elif item == "step_num":
                extra["step_num"] = int(cb_params.cur_step_num)
            else:
                extra.update(item)
        return extra or None

    def _skips_this_rank(self) -> bool:
        """Whether this rank leaves saving to rank 0: a data-parallel job of several ranks, not rank 0, and
        ``save_all_ranks`` not asked for (every rank's weights are the same bits: one copy is enough, and ranks
        sharing a directory would write the same files)."""
        if self._config.save_all_ranks or not auto_parallel.data_parallel() or not management.is_initialized():
            return False
        return management.get_group_size() > 1 and management.get_rank() != 0

    def _save(self, cb_params: Any, force: bool) -> None:
        if cb_params.cur_step_num == self._last_triggered_step or not self._due(cb_params, force):
            return
        if self._skips_this_rank():
            self._last_triggered_step = cb_params.cur_step_num
            return
        from ...checkpoint import save_checkpoint  # protobuf is imported only by processes that save

        self._make_room()
        name = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch(cb_params)}.ckpt"
        path = os.path.join(self._directory, name)
        network = self._config.saved_network if self._config.saved_network is not None else cb_params.train_network
        save_checkpoint(network, path, self._config.integrated_save, self._config.async_save,
                        self._append_dict(cb_params))
        self._mark_kept(name)
        self._last_triggered_step = cb_params.cur_step_num
        self._latest_ckpt_file_name = path
        cb_params.latest_ckpt_file = path
