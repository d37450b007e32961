"""Function transforms, MindSpore's ``mindspore.jvp``/``vjp``/``linearize``/``jacfwd``/``jacrev``/``vmap`` and
``ops.jet``/``ops.derivative``, written over the one autodiff the gradients use (autograd.py).

Forward mode is the transpose of reverse mode: a vector-Jacobian product is linear in its cotangent, so the
gradient of ``<vjp(x, u), v>`` with respect to ``u`` is the Jacobian-vector product ``J v``. Every transform
therefore reuses the gradient rules written for the reverse pass (nested gradients are traced and compiled
like any graph), at the cost of a second backward pass. ``vmap`` maps by slicing: the function runs once per
batch element and the results are stacked (MindSpore's values; a batched graph per op is not generated).
"""

from __future__ import annotations

from .forward import jacfwd, jacrev, jvp, linearize, vjp
from .taylor import derivative, jet
from .vectorize import vmap

__all__ = ["jvp", "vjp", "linearize", "jacfwd", "jacrev", "vmap", "jet", "derivative"]
