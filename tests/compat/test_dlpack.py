"""``mindspore.utils.to_dlpack`` / ``from_dlpack``: Tensors exchanged with torch and NumPy through DLPack share
their memory both ways; what cannot be read gets a clear error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import opbuild as ms
from opbuild.utils import from_dlpack, to_dlpack


def test_to_dlpack_shares_memory_with_torch() -> None:
    t = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    pt = torch.utils.dlpack.from_dlpack(to_dlpack(t))
    assert pt.shape == (2, 3) and pt.dtype == torch.float32
    pt[0, 0] = 42.0
    assert t.asnumpy()[0, 0] == 42.0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool])
def test_from_dlpack_of_capsules_and_objects(dtype: torch.dtype) -> None:
    x = torch.arange(4).to(dtype)
    from_capsule, from_object = from_dlpack(torch.utils.dlpack.to_dlpack(x)), from_dlpack(x)
    x[1] = 0 if dtype == torch.bool else 7  # shared: both see the change
    for m in (from_capsule, from_object):
        assert isinstance(m, ms.Tensor) and m.shape == (4,)
        np.testing.assert_array_equal(m.asnumpy(), x.numpy())
    doubled = ms.ops.logical_or(from_object, from_object) if dtype == torch.bool else from_object + from_object
    np.testing.assert_array_equal(doubled.asnumpy(), (x | x if dtype == torch.bool else x + x).numpy())


def test_from_dlpack_of_a_strided_view_is_contiguous() -> None:
    x = torch.arange(6.0).reshape(2, 3)
    m = from_dlpack(x.T)
    np.testing.assert_array_equal(m.asnumpy(), x.T.numpy())


def test_bad_inputs() -> None:
    with pytest.raises(TypeError, match="to_dlpack: tensor must be a Tensor, got ndarray"):
        to_dlpack(np.zeros(3))
    with pytest.raises(TypeError, match="from_dlpack: cannot read int as DLPack"):
        from_dlpack(5)


def test_log_and_device_manager_modules() -> None:
    import opbuild.device_manager as dm
    import opbuild.log as log

    assert log.get_level() == ms.get_level() and set(log.get_log_config()) == {"GLOG_v", "GLOG_logtostderr"}
    assert dm.get_current_device() == ms.get_current_device()
    assert dm.get_current_device().device_target == "CPU"
