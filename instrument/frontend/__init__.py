"""The front end: a CUDA source read (parse.py: libclang), what it contains (query.py: accesses,
barriers, atomics, launches), and edits planned on its text and applied (rewrite.py); the cpu
lowering's edits (lower_cpu.py), suppression comments, the C headers C sources reach."""
