"""Process state lives in the session: operators keep what they need between calls in ``Session.state``, core
reaches the runtime and ops through core/providers.py alone, and no module of opbuild fills a slot of another
when it is imported."""

from __future__ import annotations

import numpy as np

import opbuild as ms
from opbuild.core import providers, tensor, trace
from opbuild.ops import functional as F
from opbuild.runtime.session import Session, session


def test_dropout_generator_states_belong_to_the_session() -> None:
    seed = 918_273_645  # a seed no other test draws with: the session (and its states) lives for the whole run
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        x = ms.Tensor(np.ones((64,), np.float32))
        assert seed not in session().state("dropout")
        F.dropout(x, p=0.5, seed=seed)
        state = session().state("dropout")[seed]
        assert state.asnumpy()[1] == 1  # the call advanced its generator counter in the session's Parameter
        F.dropout(x, p=0.5, seed=seed)
        assert session().state("dropout")[seed] is state and state.asnumpy()[1] == 2
        assert seed not in Session().state("dropout")  # another session starts with no state
    finally:
        ms.set_context(mode=mode)


def test_core_names_higher_layers_only_in_providers() -> None:
    # No slot of core is filled at import time: the engine and the tensor methods are looked up on use.
    assert not hasattr(trace, "install_engine") and not hasattr(trace, "_engine")
    assert not hasattr(tensor, "bind_functional") and not hasattr(tensor, "_functional")
    assert trace.engine() is session()
    assert providers.tensor_methods().getitem is not None
    assert providers.provider("sparse_classes")["COOTensor"].__name__ == "COOTensor"
    # The only names of higher layers core reaches, each looked up on first use: the engine, the functional API
    # and sparse classes behind Tensor's methods, mint's functions for the Tensor methods MindSpore defines by
    # them (kthvalue, histc, ...), DLPack import, the gradient hook of Tensor.register_hook, and the compiled
    # initializer fills (runtime/init_fill.py) behind core/philox_fill.py.
    assert set(providers.PROVIDERS) == {"engine", "tensor_methods", "sparse_classes", "mint", "from_dlpack",
                                        "grad_identity", "init_fills"}
    assert providers.provider("init_fills").__class__.__name__ == "InitFills"
    assert providers.provider("mint").kthvalue and providers.provider("from_dlpack").__name__ == "from_dlpack"
