"""`plugin-eval check`'s workflow: read a suite as a session would (suite.py), the floor that makes its Δ worth
reading (floor.py), what a run of it would cost (cost.py), judged expectations that look mechanical (hints.py)."""
