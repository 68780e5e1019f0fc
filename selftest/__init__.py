"""hirace selftest: generated race-free programs as oracles for hirace and the cltc instrumentations."""
