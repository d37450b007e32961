"""``BackupAndRestore``: keep a checkpoint of the train network in ``backup_dir`` every ``save_freq`` epochs
and load it at the start of the next training run, so a run killed part-way resumes from its last backup (the
epoch count itself starts again, as in MindSpore). The file is ``<backup_dir>/backup.ckpt``, removed when
training ends unless ``delete_checkpoint=False``."""

from __future__ import annotations

import os
from typing import Any

from ...checkpoint import load_checkpoint, save_checkpoint
from ._callback import Callback, RunContext


class BackupAndRestore(Callback):
    """Back up the train network's parameters at epoch ends and restore them when training begins."""

    def __init__(self, backup_dir: str, save_freq: Any = "epoch", delete_checkpoint: bool = True) -> None:
        super().__init__()
        if not isinstance(backup_dir, str):
            raise TypeError(f"BackupAndRestore: backup_dir must be a directory path (str), got "
                            f"{type(backup_dir).__name__}")
        if save_freq != "epoch":
            if isinstance(save_freq, bool) or not isinstance(save_freq, int):
                raise TypeError(f"BackupAndRestore: save_freq must be 'epoch' or an int, got "
                                f"{type(save_freq).__name__}")
            if save_freq <= 0:
                raise ValueError(f"BackupAndRestore: save_freq must be > 0 (epochs between backups), got {save_freq}")
        if not isinstance(delete_checkpoint, bool):
            raise TypeError(f"BackupAndRestore: delete_checkpoint must be a bool, got "
                            f"{type(delete_checkpoint).__name__}")
        os.makedirs(backup_dir, exist_ok=True)
        self.backup_file = os.path.join(os.path.realpath(backup_dir), "backup.ckpt")
        self.save_freq = 1 if save_freq == "epoch" else save_freq
        self.delete_checkpoint = delete_checkpoint

    def on_train_begin(self, run_context: RunContext) -> None:
        """Load the backup, when there is one, into the train network."""
        if os.path.exists(self.backup_file):
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Write the backup every ``save_freq`` epochs."""
        cb_params = run_context.original_args()
        if cb_params.cur_epoch_num % self.save_freq == 0:
            save_checkpoint(cb_params.train_network, self.backup_file)

    def on_train_end(self, run_context: RunContext) -> None:
        """Remove the backup (training finished) unless ``delete_checkpoint`` is False."""
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)
