"""``nn.SampledSoftmaxLoss``: the softmax cross entropy over each example's true classes and a small sample of
the others (MindSpore 2.10's construction: logits of the true and sampled classes, each minus the log of its
expected count, then a softmax cross entropy against ``1 / num_true`` on the true ones). MindSpore ignores
``reduction`` here (one loss per example whatever it says); so does opbuild.

The candidates come from ``sampled_values`` when given (a tuple of the sampled ids, the true classes' and the
sampled ones' expected counts, as ``ops.UniformCandidateSampler`` returns them). Otherwise they are drawn as
MindSpore's ``UniformCandidateSampler(num_true, num_sampled, unique=True, range_max=num_classes, seed,
remove_accidental_hits)`` draws them: ``num_sampled`` distinct classes, uniformly, leaving out the batch's true
classes when ``remove_accidental_hits``, each with expected count ``num_sampled / num_classes`` (the value
MindSpore's sampler reports, recorded in tests/fixtures/mindspore/nn_extras.json). The draw uses NumPy's
generator seeded by ``seed`` (0: by ``set_seed`` and the call count), not MindSpore's bit stream, and reads the
labels' values (in GRAPH_MODE the graph breaks there; inside a graph without values, such as a gradient traced
in a compiled graph, pass ``sampled_values``)."""

from __future__ import annotations

import numpy as np

from ..core.init_values import op_seed
from ..core.tensor import Tensor, as_tensor
from ..ops.api import array as A
from ..ops.api import math as M
from .loss import LossBase


class SampledSoftmaxLoss(LossBase):
    """``SampledSoftmaxLoss(num_sampled, num_classes, num_true=1, sampled_values=None,
    remove_accidental_hits=True, seed=0, reduction='none')(weights, biases, labels, logits)``: weights
    (num_classes, dim), biases (num_classes,), labels (batch, num_true) or (batch,) class ids, logits
    (batch, dim); returns (batch,) losses (see the module docstring)."""

    def __init__(self, num_sampled: int, num_classes: int, num_true: int = 1, sampled_values=None,
                 remove_accidental_hits: bool = True, seed: int = 0, reduction: str = "none") -> None:
        super().__init__(reduction)
        name = "SampledSoftmaxLoss"
        for arg, v in (("num_sampled", num_sampled), ("num_classes", num_classes), ("num_true", num_true)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: {arg} must be a positive int, got {v!r}")
        if num_sampled > num_classes or num_true > num_classes:
            raise ValueError(f"{name}: num_sampled ({num_sampled}) and num_true ({num_true}) must be at most "
                             f"num_classes ({num_classes})")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"{name}: seed must be an int >= 0, got {seed!r}")
        if sampled_values is not None and (not isinstance(sampled_values, (list, tuple)) or len(sampled_values) != 3):
            raise ValueError(f"{name}: sampled_values must be a tuple (sampled, true_expected_count, "
                             f"sampled_expected_count), got {sampled_values!r}")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values, self.remove_accidental_hits, self.seed = sampled_values, bool(remove_accidental_hits), seed
        self._calls = 0

    def _sample(self, labels: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        try:
            ids = labels.asnumpy()
        except RuntimeError as exc:
            raise ValueError("SampledSoftmaxLoss: drawing the candidates needs the labels' values, which this "
                             "graph does not have; pass sampled_values") from exc
        pool = np.arange(self.num_classes)
        if self.remove_accidental_hits:
            pool = np.setdiff1d(pool, ids.reshape(-1))
        if pool.size < self.num_sampled:
            raise ValueError(f"SampledSoftmaxLoss: only {pool.size} classes are not true labels of this batch, "
                             f"fewer than num_sampled={self.num_sampled}")
        self._calls += 1
        seed = op_seed() if self.seed == 0 else self.seed * 1_000_003 + self._calls
        sampled = np.random.default_rng(seed).choice(pool, self.num_sampled, replace=False).astype(np.int32)
        count = np.float32(self.num_sampled / self.num_classes)
        return (Tensor(sampled), Tensor(np.full((ids.shape[0], self.num_true), count, np.float32)),
                Tensor(np.full(self.num_sampled, count, np.float32)))

    def construct(self, weights: Tensor, biases: Tensor, labels: Tensor, logits: Tensor) -> Tensor:
        w, b, x = as_tensor(weights), as_tensor(biases), as_tensor(logits)
        lab = A.reshape(M._cast(as_tensor(labels), "int32"), (-1, self.num_true))
        sampled, true_count, sampled_count = (self.sampled_values if self.sampled_values is not None
                                              else self._sample(lab))
        sampled = M._cast(as_tensor(sampled), "int32")
        flat = A.reshape(lab, (-1,))
        true_w = A.reshape(A.gather(w, flat, 0), (-1, self.num_true, w.shape[1]))     # (B, T, D)
        true_logits = M.add(M.sum(M.mul(A.expand_dims(x, 1), true_w), 2),
                            A.reshape(A.gather(b, flat, 0), (-1, self.num_true)))
        sampled_logits = M.add(A.matmul(x, A.transpose(A.gather(w, sampled, 0), (1, 0))), A.gather(b, sampled, 0))
        true_logits = M.sub(true_logits, M.log(as_tensor(true_count)))
        sampled_logits = M.sub(sampled_logits, M.log(as_tensor(sampled_count)))
        out = A.cat([true_logits, sampled_logits], 1)
        target = A.cat([M.div(M.add(M.mul(true_logits, 0.0), 1.0), float(self.num_true)),
                        M.mul(sampled_logits, 0.0)], 1)
        # MindSpore's stable softmax, then -sum(target * log(p + 1e-20)) (the 1e-20 keeps log finite)
        e = M.exp(M.sub(out, M.amax(out, 1, True)))
        p = M.div(e, M.sum(e, 1, True))
        return M.neg(M.sum(M.mul(target, M.log(M.add(p, 1e-20))), 1))


__all__ = ["SampledSoftmaxLoss"]
