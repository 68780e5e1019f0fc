"""Load a built kernel library and launch its kernels from Python.

`open_library(manifest)` gives a CpuLibrary (ctypes into the shared library the cpu
backend built) or a GpuLibrary (the driver loads each cubin, through cuda-python or pycuda:
drivers.py). Both copy arrays in, launch,
wait, and copy non-const arrays back, so a test sees the same results on either.
Launch hooks let a tool's host side act around launches (cltestcheck/gpu_host.py)."""
from __future__ import annotations

import ctypes
import hashlib
from pathlib import Path

from ..errors import UserError
from .drivers import DriverError, open_driver
from .manifest import Manifest, SourceEntry, read
from .marshal import KernelArgumentError, Prepared, dims, prepare
from .signatures import KernelSig


# Every array travels with a guard zone on each side, filled with one byte pattern: a read
# just outside an array sees the same values on both backends, and a write there is reported.
GUARD = 256
GUARD_BYTE = 0xA5


def _guard_hits(buf, nbytes: int) -> str:
    """'' when both guards are intact, else where the kernel wrote."""
    import numpy as np
    front, back = buf[:GUARD], buf[GUARD + nbytes:]
    bad_f, bad_b = np.flatnonzero(front != GUARD_BYTE), np.flatnonzero(back != GUARD_BYTE)
    if bad_f.size:
        return f"{GUARD - int(bad_f[0])} bytes before its start"
    if bad_b.size:
        return f"{int(bad_b[-1]) + 1} bytes past its end"
    return ""


def _out_of_bounds(k: "Kernel", p: Prepared, where: str) -> "LaunchFailed":
    return LaunchFailed(f"kernel '{k.sig.qualified}' wrote outside the array of parameter '{p.param.name}' "
                        f"({where}; the array holds {p.array.nbytes} bytes)")


class KernelNotFound(LookupError):
    """No launchable kernel of that name in the file."""


class LaunchFailed(RuntimeError):
    """The device (or the emulator) reported an error for a launch."""


class Kernel:
    """A callable kernel: k(grid, block, *args, shared_mem=0)."""

    def __init__(self, lib: "Library", source: SourceEntry, index: int):
        self.lib, self.source, self.index = lib, source, index
        self.sig: KernelSig = source.kernels[index]

    @property
    def name(self) -> str:
        return self.sig.qualified

    def __repr__(self) -> str:
        params = ", ".join(f"{p.type} {p.name}" for p in self.sig.params)
        return f"<kernel {self.sig.qualified}({params}) from {self.source.path}:{self.sig.line} on {self.lib.backend}>"

    def __call__(self, grid, block, *args, shared_mem: int = 0) -> None:
        g = dims(grid, "grid", self.sig.qualified)
        b = dims(block, "block", self.sig.qualified)
        if not isinstance(shared_mem, int) or shared_mem < 0:
            raise KernelArgumentError(f"kernel '{self.sig.qualified}': shared_mem must be a non-negative int")
        prepared = prepare(self.sig, args)
        self.lib.launch(self, g, b, shared_mem, prepared)
        self.lib.record_outputs(self, prepared)


class Library:
    backend = ""

    def __init__(self, manifest: Manifest):
        self.manifest = manifest
        self.launches = 0
        self._digest = hashlib.sha256()
        self.hooks: list = []          # objects with before_launch(lib, kernel, grid) / finish(lib)

    def kernel(self, path: str | Path, name: str) -> Kernel:
        src = self.manifest.source(path)
        if src is None:
            built = ", ".join(s.path for s in self.manifest.sources) or "none"
            raise KernelNotFound(f"{path}: this kernel library was not built from that file (built: {built})")
        names = [k for k in src.kernels if name in (k.qualified, k.name)]
        if not names:
            have = ", ".join(k.qualified + (f" (not launchable: {k.problem})" if k.problem else "")
                             for k in src.kernels) or "none"
            raise KernelNotFound(f"{src.path}: no kernel named '{name}'; its kernels: {have}")
        if len(names) > 1:
            raise KernelNotFound(f"{src.path}: '{name}' names {len(names)} kernels "
                                 f"({', '.join(k.qualified for k in names)}); use the qualified name")
        sig = names[0]
        if sig.problem:
            raise KernelNotFound(f"{src.path}:{sig.line}: kernel '{sig.qualified}' cannot be launched from "
                                 f"Python: {sig.problem}")
        return Kernel(self, src, src.kernels.index(sig))

    def launch(self, k: Kernel, grid, block, shm: int, prepared: list[Prepared]) -> None:
        raise NotImplementedError

    def record_outputs(self, k: Kernel, prepared: list[Prepared]) -> None:
        """Fold what the launch wrote into the outputs digest (cltc amplify compares them)."""
        self.launches += 1
        self._digest.update(k.sig.qualified.encode() + b"\0")
        for p in prepared:
            if p.copy_back and p.array is not None:
                self._digest.update(p.array.tobytes())

    def outputs_digest(self) -> str:
        return self._digest.hexdigest()[:16]

    def finish(self) -> None:
        for h in self.hooks:
            h.finish(self)


class CpuLibrary(Library):
    backend = "cpu"

    def __init__(self, manifest: Manifest, fault_fd: int | None = None):
        """fault_fd: where an emulator fault's message also goes (the kernels run in this
        process, and a fault ends it; pytest would lose what went to the captured stderr)."""
        super().__init__(manifest)
        path = manifest.root / manifest.library
        try:
            self.dll = ctypes.CDLL(str(path))
        except OSError as exc:
            raise UserError(f"{path}: cannot load the kernel library ({exc})",
                            hint="rebuild it; it was built for another machine or is incomplete") from None
        self._finished = False
        if fault_fd is not None and hasattr(self.dll, "cctk_py_set_fault_fd"):
            self.dll.cctk_py_set_fault_fd(ctypes.c_int(fault_fd))

    def launch(self, k: Kernel, grid, block, shm, prepared) -> None:
        fn = getattr(self.dll, k.source.entries[k.index])
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.POINTER(ctypes.c_uint), ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_void_p)]
        import numpy as np
        keep, copies = [], []
        slots = (ctypes.c_void_p * max(1, len(prepared)))()
        for i, p in enumerate(prepared):
            if p.param.kind == "pointer":
                buf = None
                if p.array is not None:              # the "device" copy, between its guards
                    n = p.array.nbytes
                    buf = np.full(2 * GUARD + n, GUARD_BYTE, dtype=np.uint8)
                    buf[GUARD:GUARD + n] = p.array.view(np.uint8).reshape(-1)
                ptr = ctypes.c_void_p(None if buf is None else buf.ctypes.data + GUARD)
                keep += [buf, ptr]
                copies.append((p, buf))
                slots[i] = ctypes.addressof(ptr)
            else:
                val = np.array(p.scalar)
                keep.append(val)
                slots[i] = val.ctypes.data
        cfg = (ctypes.c_uint * 6)(*grid, *block)
        rc = fn(cfg, shm, slots)
        if rc != 0:
            raise LaunchFailed(f"kernel '{k.sig.qualified}' failed: CUDA error {rc}")
        for p, buf in copies:
            if buf is None:
                continue
            n = p.array.nbytes
            where = _guard_hits(buf, n)
            if where:
                raise _out_of_bounds(k, p, where)
            if p.copy_back:
                p.array.view(np.uint8).reshape(-1)[...] = buf[GUARD:GUARD + n]

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        super().finish()
        fin = getattr(self.dll, "cctk_py_finish", None)
        if fin is not None:
            fin()


class GpuLibrary(Library):
    backend = "gpu"

    def __init__(self, manifest: Manifest):
        super().__init__(manifest)
        self.driver = open_driver()       # cuda-python or pycuda (drivers.py)
        self.modules: dict[str, object] = {}

    def module(self, src: SourceEntry):
        m = self.modules.get(src.path)
        if m is None:
            try:
                m = self.driver.load_module(str(self.manifest.root / src.module))
            except DriverError as exc:
                raise LaunchFailed(f"{src.module}: cannot load the module ({exc})") from None
            self.modules[src.path] = m
            for h in self.hooks:
                h.module_loaded(self, src, m)
        return m

    def launch(self, k: Kernel, grid, block, shm, prepared) -> None:
        import numpy as np
        drv = self.driver
        mod = self.module(k.source)
        try:
            fn = drv.function(mod, k.sig.symbol)
        except DriverError as exc:
            raise LaunchFailed(f"kernel '{k.sig.qualified}': symbol {k.sig.symbol} is not in "
                               f"{k.source.module} ({exc})") from None
        for h in self.hooks:
            h.before_launch(self, k, grid)
        args, allocs = [], []
        try:
            for p in prepared:
                if p.param.kind != "pointer":
                    args.append(p.scalar)
                elif p.array is None:
                    args.append(np.uintp(0))
                else:
                    n = p.array.nbytes
                    d = drv.alloc(2 * GUARD + n)
                    allocs.append((p, d))
                    drv.memset8(d, GUARD_BYTE, 2 * GUARD + n)
                    if n:
                        drv.htod(d + GUARD, np.ascontiguousarray(p.array))
                    args.append(np.uintp(d + GUARD))
            drv.launch(fn, grid, block, shm, args)
            drv.synchronize()
            for p, d in allocs:
                n = p.array.nbytes
                buf = np.empty(2 * GUARD + n, dtype=np.uint8)
                drv.dtoh(buf, d)
                where = _guard_hits(buf, n)
                if where:
                    raise _out_of_bounds(k, p, where)
                if p.copy_back and n:
                    p.array.view(np.uint8).reshape(-1)[...] = buf[GUARD:GUARD + n]
        except DriverError as exc:
            raise LaunchFailed(f"kernel '{k.sig.qualified}' failed on the device: {exc}") from None
        finally:
            for _, d in allocs:
                try:
                    drv.free(d)
                except DriverError:
                    pass


def open_library(manifest_path: str | Path, fault_fd: int | None = None) -> Library:
    m = read(manifest_path)
    return CpuLibrary(m, fault_fd) if m.backend == "cpu" else GpuLibrary(m)
