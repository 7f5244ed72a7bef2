"""The results of a session as one typed document (model), the rules that score it, the results folder on disk,
and what is built from stored results: regrading, `--lf`, hints; the cost ledger; a person's labels of judged
verdicts (labels.json) and the judges measured against them (calibration)."""
