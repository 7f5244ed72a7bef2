"""Findings about a loaded suite, without running it: cases whose numbers would measure less than they seem to.
`plugin-eval check` and a session's start ask the same rules (`lint_case`); docs/findings.md lists every kind."""
