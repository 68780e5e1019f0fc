"""Byte- and value-wise mutation of an input: its numeric arguments, the numbers of a text file (or of
the standard input), the bytes and 32-bit words of a binary file. Every change is drawn from the
generator it is given (numpy's, seeded by the search), so a seed gives the same changes.

The numbers of an input are also its *slots* (`slots`, `with_slot`): the variables the distance-guided
step moves one at a time (climb.py)."""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

import numpy as np

INTERESTING = (0, 1, -1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 255, 256, 257, 511,
               512, 1000, 1023, 1024, 1025, 4096, 65535, 65536, 2**31 - 1, -2**31)
INTERESTING_FLOATS = (0.0, 1.0, -1.0, 0.5, 1e-30, -1e-30, 1e30, 3.4e38, -3.4e38, 1e-45, 1e308)
NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
INT = re.compile(r"-?\d+")
FLOAT = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
LARGEST = 2**63 - 1


def is_number(text: str) -> bool:
    return bool(FLOAT.fullmatch(text.strip())) and text.strip() != ""


def _is_int(text: str) -> bool:
    return bool(INT.fullmatch(text.strip()))


def _clamp(v: int) -> int:
    return max(-LARGEST, min(LARGEST, v))


def new_int(rng: np.random.Generator, v: int) -> int:
    """A new value near v, at a boundary, or interesting (the choices AFL's arithmetic and
    interesting-value stages make)."""
    k = int(rng.integers(8))
    if k <= 2:
        return _clamp(v + int(rng.choice([-1, 1])) * int(rng.integers(1, 5)))
    if k == 3:
        return _clamp(v + int(rng.choice([-1, 1])) * int(rng.integers(1, 65)))
    if k == 4:
        return _clamp([v * 2, v // 2, -v, v + 1 if v % 2 == 0 else v - 1][int(rng.integers(4))])
    if k == 5:
        return _clamp(int(rng.integers(0, 2 * max(abs(v), 8) + 1)))
    return INTERESTING[int(rng.integers(len(INTERESTING) - 2 if rng.random() < 0.9 else len(INTERESTING)))]


def new_float(rng: np.random.Generator, v: float) -> float:
    """A new value near v, a multiple of it, or interesting. A number past the double's range (an
    input's 1e999, a step of 1e308's) draws an interesting value instead of a value around it."""
    k = int(rng.integers(6))
    if not math.isfinite(v) or (k == 3 and not math.isfinite(4 * abs(v) + 2)):
        return INTERESTING_FLOATS[int(rng.integers(len(INTERESTING_FLOATS)))]
    if k == 0:
        return v + float(rng.choice([-1.0, 1.0]))
    if k == 1:
        return v * float(rng.choice([10.0, 0.1, 2.0, 0.5]))
    if k == 2:
        return -v
    if k == 3:
        return float(rng.uniform(-2 * abs(v) - 1, 2 * abs(v) + 1))
    return INTERESTING_FLOATS[int(rng.integers(len(INTERESTING_FLOATS)))]


def format_number(original: str, value) -> str:
    """value written as the original number was (an integer stays one)."""
    if _is_int(original) and isinstance(value, int):
        return str(value)
    return repr(float(value))


def new_number(rng: np.random.Generator, text: str) -> str:
    if _is_int(text):
        return str(new_int(rng, int(text)))
    return format_number(text, new_float(rng, float(text)))


# -- text and binary files ----------------------------------------------------------

def is_text(data: bytes) -> bool:
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def mutate_text(rng: np.random.Generator, data: bytes) -> tuple[bytes, str]:
    """A number of the text changed, or a line repeated, removed or two lines swapped; a text without
    numbers gets one (programs read numbers from text). Text stays text: no byte is changed blindly."""
    numbers = list(NUMBER.finditer(data))
    lines = data.split(b"\n")
    if not numbers:
        at = int(rng.integers(len(data) + 1))
        value = INTERESTING[int(rng.integers(len(INTERESTING) - 2))]
        return data[:at] + f" {value} ".encode() + data[at:], f"number {value} inserted at {at}"
    if rng.random() < 0.8 or len(lines) < 3:
        k = int(rng.integers(len(numbers)))
        m = numbers[k]
        old = m.group().decode()
        new = new_number(rng, old)
        return data[:m.start()] + new.encode() + data[m.end():], f"number {k + 1}: {old} -> {new}"
    i, j = int(rng.integers(len(lines))), int(rng.integers(len(lines) - 1))
    j += j >= i   # (another line than i)
    k = int(rng.integers(3))
    if k == 0:
        lines.insert(i, lines[j])
        what = f"line {j + 1} repeated"
    elif k == 1 and len(lines) > 2:
        del lines[i]
        what = f"line {i + 1} removed"
    else:
        lines[i], lines[j] = lines[j], lines[i]
        what = f"lines {i + 1} and {j + 1} swapped"
    return b"\n".join(lines), what


def mutate_bytes(rng: np.random.Generator, data: bytes) -> tuple[bytes, str]:
    """AFL's havoc, one step: a bit flipped, a byte or 32-bit word set to an interesting value, a
    word changed by a little, a chunk inserted, removed or repeated."""
    b = bytearray(data)
    k = int(rng.integers(6)) if b else 4
    if k == 0:
        i = int(rng.integers(len(b) * 8))
        b[i // 8] ^= 1 << (i % 8)
        return bytes(b), f"bit {i} flipped"
    if k == 1:
        i = int(rng.integers(len(b)))
        b[i] = int(rng.choice([0, 1, 0x7F, 0x80, 0xFF, 0x10, 0x20, 0x40]))
        return bytes(b), f"byte {i} set to {b[i]}"
    if k in (2, 3) and len(b) >= 4:
        i = int(rng.integers(len(b) // 4)) * 4
        old = struct.unpack_from("<i", b, i)[0]
        new = new_int(rng, old) if k == 2 else old + int(rng.integers(-8, 9))
        new = max(-2**31, min(2**31 - 1, new))
        struct.pack_into("<i", b, i, new)
        return bytes(b), f"word at byte {i}: {old} -> {new}"
    if k == 4 or len(b) < 2:
        i = int(rng.integers(len(b) + 1))
        n = int(rng.integers(1, 9))
        b[i:i] = bytes(int(x) for x in rng.integers(0, 256, size=n))
        return bytes(b), f"{n} bytes inserted at {i}"
    i = int(rng.integers(len(b)))
    n = int(rng.integers(1, min(16, len(b) - i) + 1))
    if rng.random() < 0.5:
        del b[i:i + n]
        return bytes(b), f"{n} bytes removed at {i}"
    b[i:i] = b[i:i + n]
    return bytes(b), f"{n} bytes at {i} repeated"


# -- slots: the numbers of an input, one at a time -------------------------------------

@dataclass(frozen=True)
class Slot:
    kind: str            # arg | text | stdin | word
    where: str           # the argument's index, or the file's relative path
    index: int           # arg: unused; text/stdin: the number's index; word: its byte offset
    value: float         # its value now
    integral: bool
    label: str = ""      # arg: its name where the input names its arguments (a pytest test's places)

    def describe(self) -> str:
        if self.kind == "arg":
            return self.label or f"argument {int(self.where) + 1}"
        if self.kind == "word":
            return f"word at byte {self.index} of {self.where}"
        return f"number {self.index + 1} of {self.where or 'stdin'}"


MAX_WORD_SLOTS = 64   # binary files: the first words only (a header, sizes, a few values)


def slots(inp, binary: dict[str, bool]) -> list[Slot]:
    """The numbers of an input: its numeric arguments, the numbers of its text files and of its
    standard input, the first 32-bit words of its binary files (`binary`: file -> is it binary and
    not of a structured format, whose own generator changes it)."""
    out = [Slot("arg", str(i), 0, float(a), _is_int(a), inp.places[i] if inp.places else "")
           for i, a in enumerate(inp.args) if is_number(a)]
    for rel, data in inp.files:
        if binary.get(rel) is None:
            continue
        if binary[rel]:
            for i in range(0, min(len(data) // 4, MAX_WORD_SLOTS) * 4, 4):
                out.append(Slot("word", rel, i, float(struct.unpack_from("<i", data, i)[0]), True))
        else:
            for k, m in enumerate(NUMBER.finditer(data)):
                out.append(Slot("text", rel, k, float(m.group()), _is_int(m.group().decode())))
    if inp.stdin is not None:
        for k, m in enumerate(NUMBER.finditer(inp.stdin.encode())):
            out.append(Slot("stdin", "", k, float(m.group()), _is_int(m.group().decode())))
    return out


def _number_text(slot: Slot, value: float) -> str:
    return str(int(value)) if slot.integral else repr(float(value))


def _replace_number(data: bytes, index: int, text: str) -> bytes:
    m = list(NUMBER.finditer(data))[index]
    return data[:m.start()] + text.encode() + data[m.end():]


def with_slot(inp, slot: Slot, value: float):
    """inp with the slot's number set to value (an integral slot's rounded)."""
    if slot.integral:
        value = _clamp(int(round(value))) if np.isfinite(value) else 0
    if slot.kind == "arg":
        return inp.with_arg(int(slot.where), _number_text(slot, value))
    if slot.kind == "word":
        b = bytearray(inp.file(slot.where))
        struct.pack_into("<i", b, slot.index, max(-2**31, min(2**31 - 1, int(value))))
        return inp.with_file(slot.where, bytes(b))
    if slot.kind == "text":
        return inp.with_file(slot.where, _replace_number(inp.file(slot.where), slot.index, _number_text(slot, value)))
    from dataclasses import replace
    return replace(inp, stdin=_replace_number(inp.stdin.encode(), slot.index, _number_text(slot, value)).decode())
