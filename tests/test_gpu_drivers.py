"""The Python bindings that launch kernels on a GPU (instrument/kernel_lib/drivers.py): the
choice between cuda-python and pycuda, clear errors without one, and cuda-python's launch
marshalling (checked against a stand-in for `cuda.bindings.driver` that decodes what a launch
would pass to the driver; the real driver runs in bench/pytest_kernels on a GPU)."""
from __future__ import annotations

import ctypes
import importlib.util
import sys
import types

import numpy as np
import pytest

from instrument.errors import UserError
from instrument.kernel_lib import drivers


def test_no_binding_is_a_clear_error_saying_what_to_install():
    if importlib.util.find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed here: the error needs a binding that is missing")
    with pytest.raises(UserError) as e:
        drivers.open_driver({"CCTK_GPU_BINDING": "pycuda"})
    assert "neither is usable here: pycuda (No module named 'pycuda')" in str(e.value)
    assert "cuda-python" in e.value.hint and not drivers.binding_importable({"CCTK_GPU_BINDING": "pycuda"})


def test_an_unknown_binding_is_refused():
    with pytest.raises(UserError, match="CCTK_GPU_BINDING=numba: not a binding"):
        drivers.open_driver({"CCTK_GPU_BINDING": "numba"})


class _FakeDriver(types.SimpleNamespace):
    """Just enough of cuda.bindings.driver: CUresult codes, and a launch that decodes its
    kernelParams (an array of pointers to each parameter's bytes)."""

    def __init__(self, sizes):
        ok = types.SimpleNamespace(CUDA_SUCCESS=0)
        super().__init__(CUresult=ok, CUdeviceptr=int, sizes=sizes, launched=None)

    def cuInit(self, flags): return (0,)
    def cuDeviceGet(self, n): return (0, 0)
    def cuDevicePrimaryCtxRetain(self, dev): return (0, "ctx")
    def cuCtxSetCurrent(self, ctx): return (0,)
    def cuGetErrorName(self, err): return (0, b"CUDA_ERROR_LAUNCH_FAILED")
    def cuCtxSynchronize(self): return (700,)

    def cuLaunchKernel(self, fn, gx, gy, gz, bx, by, bz, shm, stream, params, extra):
        slots = (ctypes.c_uint64 * len(self.sizes)).from_address(params)
        self.launched = (fn, (gx, gy, gz), (bx, by, bz), shm,
                         [ctypes.string_at(p, n) for p, n in zip(slots, self.sizes)])
        return (0,)


def test_cuda_python_launch_passes_each_parameters_bytes_and_errors_name_the_call(monkeypatch):
    fake = _FakeDriver([8, 4, 8, 2])
    pkg = types.ModuleType("cuda.bindings")
    pkg.driver = fake
    monkeypatch.setitem(sys.modules, "cuda", types.ModuleType("cuda"))
    monkeypatch.setitem(sys.modules, "cuda.bindings", pkg)
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", fake)
    drv = drivers.open_driver({"CCTK_GPU_BINDING": "cuda-python"})
    assert drv.name == "cuda-python"
    args = [np.uintp(0x7F0012345600), np.int32(-5), np.float64(2.5), np.int16(7)]
    drv.launch("k", (3, 2, 1), (64, 1, 1), 128, args)
    fn, grid, block, shm, values = fake.launched
    assert (fn, grid, block, shm) == ("k", (3, 2, 1), (64, 1, 1), 128)
    assert values == [a.tobytes() for a in args]
    with pytest.raises(drivers.DriverError, match="cuCtxSynchronize: CUDA_ERROR_LAUNCH_FAILED"):
        drv.synchronize()
