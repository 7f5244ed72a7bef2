"""The pytest adapter, and only it: every module here imports pytest. The hooks (hooks.py, the controller's
controller.py), the eval session hung on `config` (eval_session.py), the items a case file, a trigger file or an
evals.json collects into (items/), the gathering of their reports (gatherer.py, trigger_gatherer.py), each case's
verdict reported as a test (verdicts.py), the progress line, the fixtures and every use of pytest's internals
(pytest_internals.py). What the session does without pytest is engine/."""
