"""The pytest nodes: a case file's runs (case.py, with the selection policies), a trigger file's queries
(triggers.py), an evals.json's evals (skill_evals.py)."""
