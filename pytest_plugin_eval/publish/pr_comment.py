"""`plugin-eval pr-comment`'s work: read the session's results (a results folder, a results JSON file, or a model
matrix's folder) and the baseline's, compare them as `compare` does, write the comment's text
(report.pr_comment) and post it on the pull request — updating the suite's comment when the pull request has one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..analysis.compare import compare, read_document
from ..report.pr_comment import CommentPart, comment_text, marker, suite_key
from ..results.matrix import is_matrix, read_matrix
from ..results.model import SuiteResult
from . import github


@dataclass(frozen=True)
class Comment:
    text: str
    posted: github.Posted | None  # None: not posted (--dry-run)
    pr: int | None = None


def _documents(source: Path) -> list[tuple[str | None, Path, SuiteResult]]:
    """(model or None, where it was read from, the document) for a session's results, one per model of a matrix."""
    if not is_matrix(source):
        return [(None, source, read_document(source))]
    matrix, folder = read_matrix(source)
    return [(m.model, folder / m.document, read_document(folder / m.document)) for m in matrix.models]


def comment_parts(results: Path, against: Path | None) -> list[CommentPart]:
    """Each document of `results` with its comparison with the same model's document of `against`."""
    new = _documents(results)
    old = {model: (path, document) for model, path, document in _documents(against)} if against else {}
    if len(old) == 1 and len(new) == 1:  # one document each: compare them whatever model each ran
        old = {new[0][0]: next(iter(old.values()))}
    parts = []
    for model, path, document in new:
        if model in old:
            old_path, before = old[model]
            comparison = compare(before, document, old_source=str(old_path), new_source=str(path))
            parts.append(CommentPart(document, comparison, before, model))
        else:
            parts.append(CommentPart(document, label=model))
    return parts


def pr_comment(
    results: Path,
    against: Path | None,
    env: Mapping[str, str],
    key: str | None = None,
    number: int | None = None,
    baseline: str = "the baseline",
    dry_run: bool = False,
    opener: github.Opener | None = None,
) -> Comment:
    """The comment for `results` (compared with `against`), posted on the pull request the environment names
    unless `dry_run`. Raises CompareError / MatrixError for a document it cannot read, GitHubError when GitHub
    refuses or the environment names no pull request."""
    parts = comment_parts(results, against)
    key = key or suite_key(parts[0].document)
    text = comment_text(parts, key, github.run_url(env), baseline)
    if dry_run:
        return Comment(text, None)
    pr = github.pull_request_from_env(env, number)
    return Comment(text, github.Client(pr, opener).upsert(marker(key), text), pr.number)
