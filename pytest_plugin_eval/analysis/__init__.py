"""Computations over stored results documents: comparing two sessions (compare.py), merging shards (merge.py),
which stored runs may stand in for a without-plugin run (baseline.py), regrading stored runs (regrade.py)."""
