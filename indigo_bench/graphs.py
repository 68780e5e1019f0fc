"""Seeded generators of ECLgraph inputs (the engine's: instrument/eclgraph/generators.py, its kinds and
their shapes described there), and the six small inputs of the HiRace evaluation."""
from __future__ import annotations

from instrument.eclgraph.generators import KINDS, Spec, generate  # noqa: F401

# The six small inputs of the HiRace evaluation, by name and shape, made by our generator.
SMALL = (
    Spec("dag", 5, 5, 1, "DAG_5n_5e"),
    Spec("dag", 100, 200, 1, "DAG_100n_200e"),
    Spec("dag", 200, 400, 1, "DAG_200n_400e"),
    Spec("counterdag", 5, 5, 1, "counterDAG_5n_5e"),
    Spec("counterdag", 200, 1000, 1, "counterDAG_200n_1000e"),
    Spec("powerlaw", 200, 1000, 1, "power_law_200n_1000e"),
)
