"""Delivering a session's results where its readers are, outside the results folder: the pull request comment
(`plugin-eval pr-comment`: `pr_comment` gathers the documents and the text, `github` is the REST client that
finds, creates and updates the comment), and the local page where a person reviews and labels a results folder
(`plugin-eval review`: `review_server`). It reads results (`results/`) and their text (`report/`) and knows
nothing of pytest, so it sits beside `session/`, not on top of it; only the command line calls it.

Standard library only (urllib): a CI step that posts a comment needs no dependency beyond the package."""
