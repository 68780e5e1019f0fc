"""The CUDA driver calls that launching a kernel from Python needs, over either Python binding:
NVIDIA's cuda-python (`cuda.bindings.driver`, wheels on PyPI: the default) or pycuda (builds from
source where a full toolkit is installed). `CCTK_GPU_BINDING=cuda-python|pycuda` picks one; with
neither importable the gpu backend says how to get one. Device pointers are plain ints; every
failure is a DriverError."""
from __future__ import annotations

import os

from ..errors import UserError

BINDING_ENV = "CCTK_GPU_BINDING"
BINDINGS = ("cuda-python", "pycuda")


class DriverError(RuntimeError):
    """A driver call failed (the message names the call and the CUDA error)."""


class CudaPythonDriver:
    name = "cuda-python"

    def __init__(self) -> None:
        from cuda.bindings import driver as cu   # ImportError: not installed
        self.cu = cu
        try:
            self._check("cuInit", cu.cuInit(0))
        except DriverError:
            raise
        except Exception as exc:   # noqa: BLE001 - no driver library: cuda-python raises its own errors
            raise DriverError(f"cuInit: {exc}") from None
        dev = self._check("cuDeviceGet", cu.cuDeviceGet(0))
        self._ctx = self._check("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(dev))
        self._check("cuCtxSetCurrent", cu.cuCtxSetCurrent(self._ctx))

    def _check(self, call: str, result):
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != self.cu.CUresult.CUDA_SUCCESS:
            _, name = self.cu.cuGetErrorName(err)
            raise DriverError(f"{call}: {name.decode() if isinstance(name, bytes) else err}")
        return rest[0] if len(rest) == 1 else tuple(rest) if rest else None

    def load_module(self, path: str):
        return self._check("cuModuleLoad", self.cu.cuModuleLoad(str(path).encode()))

    def function(self, module, symbol: str):
        return self._check(f"cuModuleGetFunction({symbol})", self.cu.cuModuleGetFunction(module, symbol.encode()))

    def global_of(self, module, name: str) -> tuple[int, int]:
        ptr, size = self._check(f"cuModuleGetGlobal({name})", self.cu.cuModuleGetGlobal(module, name.encode()))
        return int(ptr), int(size)

    def alloc(self, nbytes: int) -> int:
        return int(self._check("cuMemAlloc", self.cu.cuMemAlloc(max(1, nbytes))))

    def free(self, ptr: int) -> None:
        self._check("cuMemFree", self.cu.cuMemFree(self.cu.CUdeviceptr(ptr)))

    def memset8(self, ptr: int, byte: int, n: int) -> None:
        self._check("cuMemsetD8", self.cu.cuMemsetD8(self.cu.CUdeviceptr(ptr), byte, n))

    def memset32(self, ptr: int, value: int, count: int) -> None:
        self._check("cuMemsetD32", self.cu.cuMemsetD32(self.cu.CUdeviceptr(ptr), value, count))

    def htod(self, ptr: int, data) -> None:
        import numpy as np
        buf = np.ascontiguousarray(np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data)
        self._check("cuMemcpyHtoD", self.cu.cuMemcpyHtoD(self.cu.CUdeviceptr(ptr), buf.ctypes.data, buf.nbytes))

    def dtoh(self, out, ptr: int) -> None:
        self._check("cuMemcpyDtoH", self.cu.cuMemcpyDtoH(out.ctypes.data, self.cu.CUdeviceptr(ptr), out.nbytes))

    def launch(self, fn, grid, block, shared: int, args: list) -> None:
        """args: numpy scalars of the parameters' exact types (a pointer as numpy.uintp)."""
        import numpy as np
        values = [np.array(a) for a in args]                  # each parameter's bytes
        slots = np.array([v.ctypes.data for v in values] or [0], dtype=np.uint64)
        self._check("cuLaunchKernel", self.cu.cuLaunchKernel(fn, *grid, *block, shared, 0, slots.ctypes.data, 0))

    def synchronize(self) -> None:
        self._check("cuCtxSynchronize", self.cu.cuCtxSynchronize())


class PycudaDriver:
    name = "pycuda"

    def __init__(self) -> None:
        import pycuda.driver as cuda   # ImportError: not installed
        try:
            import pycuda.autoprimaryctx  # noqa: F401  (the device's primary context, released at exit)
        except cuda.Error as exc:
            raise DriverError(f"pycuda: {exc}") from None
        self.cuda = cuda
        self._keep: dict[int, object] = {}   # pycuda frees an allocation when its object goes

    def _call(self, what: str, fn, *args):
        try:
            return fn(*args)
        except self.cuda.Error as exc:
            raise DriverError(f"{what}: {exc}") from None

    def load_module(self, path: str):
        return self._call("module_from_file", self.cuda.module_from_file, str(path))

    def function(self, module, symbol: str):
        return self._call(f"get_function({symbol})", module.get_function, symbol)

    def global_of(self, module, name: str) -> tuple[int, int]:
        ptr, size = self._call(f"get_global({name})", module.get_global, name)
        return int(ptr), int(size)

    def alloc(self, nbytes: int) -> int:
        a = self._call("mem_alloc", self.cuda.mem_alloc, max(1, nbytes))
        self._keep[int(a)] = a
        return int(a)

    def free(self, ptr: int) -> None:
        a = self._keep.pop(ptr, None)
        if a is not None:
            self._call("free", a.free)

    def memset8(self, ptr: int, byte: int, n: int) -> None:
        self._call("memset_d8", self.cuda.memset_d8, ptr, byte, n)

    def memset32(self, ptr: int, value: int, count: int) -> None:
        self._call("memset_d32", self.cuda.memset_d32, ptr, value, count)

    def htod(self, ptr: int, data) -> None:
        self._call("memcpy_htod", self.cuda.memcpy_htod, ptr, data)

    def dtoh(self, out, ptr: int) -> None:
        self._call("memcpy_dtoh", self.cuda.memcpy_dtoh, out, ptr)

    def launch(self, fn, grid, block, shared: int, args: list) -> None:
        self._call("launch", lambda: fn(*args, grid=tuple(grid), block=tuple(block), shared=shared))

    def synchronize(self) -> None:
        self._call("synchronize", self.cuda.Context.synchronize)


_DRIVERS = {"cuda-python": CudaPythonDriver, "pycuda": PycudaDriver}


def binding_importable(env=os.environ) -> bool:
    """Whether a binding that open_driver would use imports (without starting the driver)."""
    import importlib.util
    wanted = env.get(BINDING_ENV, "")
    modules = {"cuda-python": "cuda.bindings", "pycuda": "pycuda"}
    for name in ([wanted] if wanted in BINDINGS else BINDINGS):
        try:
            if importlib.util.find_spec(modules[name]) is not None:
                return True
        except ModuleNotFoundError:   # a parent package that is missing
            pass
    return False


def open_driver(env=os.environ):
    """The first binding that imports (cuda-python, then pycuda), or the one $CCTK_GPU_BINDING names."""
    wanted = env.get(BINDING_ENV, "")
    if wanted and wanted not in BINDINGS:
        raise UserError(f"${BINDING_ENV}={wanted}: not a binding hirace knows", hint="use one of: " + ", ".join(BINDINGS))
    missing = []
    for name in ([wanted] if wanted else BINDINGS):
        try:
            return _DRIVERS[name]()
        except ImportError as exc:
            missing.append(f"{name} ({exc})")
        except DriverError as exc:
            raise UserError(f"the gpu backend could not start the CUDA driver through {name}: {exc}",
                            hint="check that an NVIDIA driver and GPU are present, or use the cpu backend") from None
    raise UserError("the gpu backend launches kernels from Python through cuda-python or pycuda; neither is "
                    "usable here: " + "; ".join(missing),
                    hint="pip install 'cuda-correctness-toolkit[gpu]' (NVIDIA's cuda-python, wheels), or pycuda; "
                         "or use the cpu backend")
