"""Writing an eval suite with Claude Code (`plugin-eval init`): the authoring session's settings, permission rules,
prompts and the guards its hooks run (settings.py, prompts/), the interview and draft sessions (interview.py), the
plugin's recorded traffic (traffic.py), the trigger file init writes (init_triggers.py), the blank case of `init
--bare` (bare_case.py), .gitignore, and the evals.json importer (importer.py, `plugin-eval import`)."""
