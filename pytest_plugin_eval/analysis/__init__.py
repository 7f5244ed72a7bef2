"""Computations over stored results documents: comparing two sessions (compare.py), merging shards (merge.py), which
stored runs may stand in for a without-plugin run (baseline.py), regrading stored runs (regrade.py), a judge
comparing two sessions' outputs (pairwise.py), asking a judge the answers it must fail (controls.py), and all that
`plugin-eval compare` works out of two sessions (compare_sessions.py)."""
