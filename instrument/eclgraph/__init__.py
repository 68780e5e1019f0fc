"""The Indigo suite's graph format (ECLgraph): the graph and its file (format.py), seeded generators of
graphs of several shapes (generators.py). Shared by indigo-bench and cltc search."""
