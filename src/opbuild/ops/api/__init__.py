"""The lower-case functional API (MindSpore 2.x ``mindspore.ops`` functions), one module per family, written
over the registered primitives only: every function traces into primitive nodes in graph mode and runs them
eagerly in PyNative mode, so its kernels are built and cached like any other op's. ``ops.functional``
gathers them (the ``F`` namespace)."""
