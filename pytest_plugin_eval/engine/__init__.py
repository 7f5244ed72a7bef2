"""An eval session without pytest: the options value and the rules it makes of a case, the session's lazily made
resources and model endpoints, the run pool, runs started ahead, one item's evaluation, baseline reuse, the
`--runs auto` rounds, the spend ledger; on the controller's side what the reports carry (wire.py), what is gathered
(collected.py), the documents built from it (documents.py) and every file written (outputs.py, matrix_files.py);
the shards of a session merged into one results folder (shards.py).
session/ adapts it to pytest; its modules are tested without pytester."""
