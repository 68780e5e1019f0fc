"""`cltc search` over a pytest suite: a pytest plugin, loaded only into the runs the search makes (by
PYTEST_ADDOPTS, beside cltc's own plugin: cltestcheck/pytest_plugin.py, which loads the search's
build), that sees every kernel launch of the test (instrument/kernel_lib/load.py `Kernel.__call__`).

The input of a pytest test is what its launches were given: each launch's numeric scalar arguments
and the values of its numeric arrays of at most MAX_ELEMENTS elements, in the order the test made the
launches. A run with $CLTC_SEARCH_PYTEST_RECORD writes, at the end of the session, a JSON list of the
launches (kernel, its file, grid, block, shared memory, and per argument its kind, dtype and value or
values: `record`), the first launch the library failed (a kernel that wrote outside an array: the
search counts the run as failed, not as a test), and the NaN and Inf the kernels wrote into float arrays where the arrays held none
before the launch (`special`). With $CLTC_SEARCH_PYTEST_INPUT (a JSON file: `{"scalars": [[launch,
argument, "value"]], "arrays": [[launch, argument, "values"]]}`) the values given replace the test's
own before each launch (scalars clamped to their C type's range, arrays' numbers written over their
first elements, finite: a float too large for the type becomes its largest value), so the test runs
as written and its kernels see the search's input. With $CLTC_SEARCH_PYTEST_DUMP (a directory) the
launches' arguments are also written there whole (`launches.json` and one .npy per array): the tests
the search writes replay them (suite_out.py)."""
from __future__ import annotations

import json
import os
from pathlib import Path

INPUT_ENV = "CLTC_SEARCH_PYTEST_INPUT"
RECORD_ENV = "CLTC_SEARCH_PYTEST_RECORD"
DUMP_ENV = "CLTC_SEARCH_PYTEST_DUMP"
PLUGIN = "cltestcheck.search.pytest_inputs"
MAX_ELEMENTS = 4096     # larger arrays stay the test's (an input file of their numbers would be large)
NUMERIC = "iuf"         # dtype kinds the search changes (bool and records stay the test's)


def _text(values) -> str:
    """An array's values as text, one a line (repr: a float32 reads back to itself)."""
    return "".join(f"{v!r}\n" for v in values.tolist())


def _parse(text: str, dtype):
    import numpy as np
    out = []
    for word in text.split():
        try:
            out.append(_number(word, dtype))
        except (ValueError, OverflowError):
            continue
    return _fit(out, dtype) if out else np.array([], dtype=dtype)


def _number(word: str, dtype):
    if dtype.kind == "f":
        return float(word)
    try:
        return int(word)
    except ValueError:
        return int(float(word))


def _fit(values, dtype):
    """values made to fit the dtype: integers clamped to its range, floats to its finite range."""
    import numpy as np
    if dtype.kind == "f":
        big = float(np.finfo(dtype).max)
        return np.clip(np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=big, neginf=-big),
                       -big, big).astype(dtype)
    info = np.iinfo(dtype)
    return np.array([min(max(int(v), info.min), info.max) for v in values], dtype=dtype)


class Launches:
    """The session's launches: what each was given, the search's values put in, what came out."""

    def __init__(self, given: dict | None, record: str | None, dump: str | None):
        self.scalars = {(int(l), int(a)): v for l, a, v in (given or {}).get("scalars", [])}
        self.arrays = {(int(l), int(a)): v for l, a, v in (given or {}).get("arrays", [])}
        self.record, self.dump = record, dump
        self.launches: list[dict] = []
        self.special: list[dict] = []
        self.failed = ""       # a launch the library refused to finish (a write outside an array)

    def call(self, kernel, original, grid, block, args, shared_mem):
        import numpy as np
        n = len(self.launches)
        args = list(args)
        rec = {"kernel": kernel.sig.qualified, "file": str(kernel.source.path), "grid": _dims(grid),
               "block": _dims(block), "shared_mem": shared_mem, "args": []}
        before: dict[int, bool] = {}
        for i, (p, v) in enumerate(zip(kernel.sig.params, args)):
            a = {"param": p.name}
            if p.kind == "pointer" and isinstance(v, np.ndarray):
                a.update(kind="array", dtype=str(v.dtype), shape=list(v.shape), const=bool(p.const))
                if (n, i) in self.arrays and v.dtype.kind in NUMERIC:
                    new = _parse(self.arrays[(n, i)], v.dtype)
                    if not v.flags.writeable:
                        v = args[i] = v.copy()
                    flat = v.reshape(-1)
                    k = min(len(new), flat.size)
                    flat[:k] = new[:k]
                if v.dtype.kind in NUMERIC and v.size <= MAX_ELEMENTS:
                    a["values"] = _text(v.reshape(-1))
                if v.dtype.kind == "f" and not p.const:
                    before[i] = bool(np.isfinite(v).all())
            elif p.kind != "pointer" and isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)):
                dt = np.dtype(p.dtype) if p.dtype else None
                if (n, i) in self.scalars and dt is not None and dt.kind in NUMERIC:
                    v = args[i] = _fit([_number(self.scalars[(n, i)], dt)], dt)[0].item()
                if dt is not None and dt.kind in NUMERIC + "b":
                    a.update(kind="scalar", dtype=str(dt), value=repr(float(v) if dt.kind == "f" else
                                                                      bool(v) if dt.kind == "b" else int(v)))
                else:
                    a.update(kind="other")
            else:
                a.update(kind="other" if v is not None else "null")
            rec["args"].append(a)
        self.launches.append(rec)
        if self.dump:
            self._dump(n, rec, args)
        try:
            return original(kernel, grid, block, *args, shared_mem=shared_mem)
        except Exception as exc:   # (the kernel wrote outside an array: the input is no test)
            if type(exc).__name__ == "LaunchFailed" and not self.failed:
                self.failed = f"{str(exc).split(' (')[0]} (launch {n + 1})"
            raise
        finally:
            for i, clean in before.items():
                v = args[i]
                if clean and not np.isfinite(v).all():
                    for kind, bad in (("nan", np.isnan(v)), ("inf", np.isinf(v))):
                        if bad.any():
                            self.special.append({"kind": kind, "launch": n + 1, "kernel": rec["kernel"],
                                                 "param": kernel.sig.params[i].name,
                                                 "index": int(np.flatnonzero(bad.reshape(-1))[0])})

    def _dump(self, n: int, rec: dict, args) -> None:
        import numpy as np
        d = Path(self.dump)
        d.mkdir(parents=True, exist_ok=True)
        for i, (a, v) in enumerate(zip(rec["args"], args)):
            if a["kind"] == "array":
                name = f"launch-{n + 1}-{i + 1}.npy"
                np.save(d / name, v)
                a["npy"] = name

    def write(self) -> None:
        if self.record:
            Path(self.record).write_text(json.dumps({"launches": self.launches, "special": self.special,
                                                      "failed": self.failed}))
        if self.dump:
            (Path(self.dump) / "launches.json").write_text(json.dumps(self.launches, indent=1) + "\n")


def _dims(v) -> list[int]:
    t = (v,) if isinstance(v, int) else tuple(v)
    return [int(x) for x in t]


_session: Launches | None = None


def pytest_configure(config):
    global _session
    record, given, dump = os.environ.get(RECORD_ENV), os.environ.get(INPUT_ENV), os.environ.get(DUMP_ENV)
    if not (record or given or dump) or _session is not None:
        return
    from instrument.kernel_lib.load import Kernel
    _session = Launches(json.loads(Path(given).read_text()) if given else None, record, dump)
    original = Kernel.__call__

    def call(self, grid, block, *args, shared_mem: int = 0):
        return _session.call(self, original, grid, block, args, shared_mem)
    Kernel.__call__ = call


def pytest_unconfigure(config):
    if _session is not None:
        _session.write()
