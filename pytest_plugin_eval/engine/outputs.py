"""Every file a session writes, and the one rule they share (`saved`): a full disk, a vanished folder or a file
where a folder should be loses that file only and says so, the other outputs are still written, and the session
does not pass for complete. Before any run: each eval dir's results folder is claimed, and the paths asked for
are checked (`output_path_problem`). At the end: each suite's results.json and HTML report, --json, --md and
GitHub's step summary."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..core.paths import display_path
from ..results import history
from ..results.model import SuiteResult
from ..results.store import RESULTS_DIR, ResultsFolder, document_text, write_atomic, write_json
from ..results.suites import session_document
from .collected import Collected, SuiteRuns
from .documents import has_results
from .options import EvalOptions
from .session_view import SessionView


@dataclass
class Written:
    """One eval dir's results document, and where it went."""

    document: SuiteResult
    results_path: Path | None
    report_path: Path | None
    label: str
    comparison: Any = None  # --compare-to: analysis.compare.Comparison against the earlier session
    eval_root: Path | None = field(default=None, compare=False)
    model: str | None = field(default=None, compare=False)  # a model matrix's model of the document


class Outputs:
    """The files of one session; what they lose is said on `collected`."""

    def __init__(self, session: SessionView, collected: Collected):
        self.session = session
        self.collected = collected
        self.claimed: dict[Path, object] = {}  # eval root → the lock on its results folder, held to the end
        self.written: list[Written] = []
        self.matrices: list = []  # matrix.MatrixWritten: a model matrix's, per eval dir
        self.failed = False  # some output was lost: the session's record is incomplete

    @property
    def documents(self) -> list[SuiteResult]:
        return [w.document for w in self.written]

    def saved(self, path: Path, write: Callable[[], object], *, record: bool = True) -> bool:
        """Write one output (`write()` writes `path`), and say so if it is lost. `record`: a file of the session's
        record, whose loss leaves the session incomplete (GitHub's step summary, appended to, is not)."""
        try:
            write()
            return True
        except OSError as e:
            # mkdir of a parent that is a file says "File exists": name the real trouble
            reason = (
                "a file is where its folder should be"
                if isinstance(e, (FileExistsError, NotADirectoryError))
                else e.strerror or e
            )
            if not record:
                sys.stderr.write(f"⚠ could not append to GITHUB_STEP_SUMMARY ({path}): {reason}\n")
                return False
            self.failed = True
            message = f"⚠ could not write {display_path(path)}: {reason} — it is lost; the other outputs are written"
            self.collected.notice(message)
            sys.stderr.write(message + "\n")
            return False

    def claim(self, eval_root: Path) -> str | None:
        """Before any run: the eval dir's results folder is created, writable, and this session's alone. What
        keeps it from being so (nothing is run then)."""
        folder = self.session.results_folder(eval_root)
        if folder is None:
            return None
        try:
            self.claimed[eval_root] = folder.claim()
            for model in self.session.options.models:  # a matrix: each model's folder, inside the claimed one
                model_folder = self.session.results_folder(eval_root, model)
                if model_folder is not None:
                    model_folder.clear_runs()
        except OSError as e:
            return (
                f"Error: results folder {display_path(folder.path)}: {e.strerror or e} — nothing was run. "
                f"Free the folder (or some disk space), or pass --output-dir to write elsewhere."
            )
        return None

    # ---- the end ---------------------------------------------------------------------------------------

    def write(self, documents: list[SuiteResult], suites: list[SuiteRuns]) -> None:
        """Each suite's document and report, then --json, --md and the step summary."""
        for document, suite in zip(documents, suites, strict=True):
            # the notices said while building later documents too (the session's), and the suite's own only
            document.notices = self.collected.notices_of(suite)
            self.written.append(self.write_suite(document, suite, documents))
        if self.session.options.matrix:
            from .matrix_files import write_matrices

            self.matrices = write_matrices(self.session, self.saved, self.written)
        self.write_json_option(documents)
        self.write_markdown()
        self.write_benchmark()

    def write_suite(self, document: SuiteResult, suite: SuiteRuns, documents: list[SuiteResult]) -> Written:
        """One eval dir's results.json and HTML report (in its results folder, or where --report says)."""
        options = self.session.options
        root = Path(suite.eval_root) if suite.eval_root else None
        # Nothing collected from this eval dir (no cases): no results folder, as the reference tool does.
        kept = suite.collected_anything or has_results(document)  # --lf: a matrix's model whose runs were all reused
        folder = self.session.results_folder(root, suite.model) if kept else None
        label = self.session.suite_label(root, suite.model) if root else "suite"
        comparison = self.comparison(document, documents, str(folder.path) if folder else "this session")
        results_path = folder.results_file if folder else None
        if folder is not None and not self.saved(
            folder.results_file, lambda: write_json(folder.results_file, document.to_json())
        ):
            results_path = None
        report = folder.report_file if folder else None
        if options.report:
            report = Path(options.report).absolute()
            if len(documents) > 1:
                report = report.with_name(f"{report.stem}-{label}{report.suffix}")
        calibration = self.labelled(document, folder)
        if report is not None:
            from ..report.html import write_report

            past = self.trend(document, root, folder)
            page = report
            if not self.saved(page, lambda: write_report(document, page, past, comparison, calibration)):
                report = None
        return Written(document, results_path, report, label, comparison, root, suite.model)

    def write_json_option(self, documents: list[SuiteResult]) -> None:
        """--json PATH (or `-`, stdout): the document, or with several eval dirs one holding every suite's."""
        path = self.session.options.json_path
        if not path:
            return
        output = session_document(documents)
        if path == "-":
            sys.stdout.write(document_text(output))
        else:
            target = Path(path).absolute()
            self.saved(target, lambda: write_json(target, output))

    def write_benchmark(self) -> None:
        """--skill-creator-benchmark PATH: each suite in skill-creator's benchmark.json schema (with several
        suites, one file each, named after the suite)."""
        path = self.session.options.benchmark_path
        if not path:
            return
        from ..results.benchmark import benchmark

        many = len(self.written) > 1
        for written in self.written:
            target = Path(path).absolute()
            if many:
                target = target.with_name(f"{target.stem}-{written.label}{target.suffix}")
            self.saved(target, partial(write_json, target, benchmark(written.document)))

    def comparison(self, document: SuiteResult, documents: list[SuiteResult], source: str) -> Any:
        """--compare-to: this suite against the earlier session — the session's only suite, or the one that
        evaluates the same plugins as the earlier session did."""
        earlier = self.session.options.compare_to
        if earlier is None:
            return None
        from ..analysis.compare import CompareError, compare, read_document

        try:
            old = read_document(earlier)  # checked when the options were; read again: it may have gone since
        except CompareError as e:
            sys.stderr.write(f"⚠ --compare-to {e}\n")
            return None
        if len(documents) > 1 and [p.name for p in old.suite.plugins] != [p.name for p in document.suite.plugins]:
            return None
        return compare(old, document, old_source=earlier, new_source=source)

    def write_markdown(self) -> None:
        """--md PATH, and a GitHub Actions job's step summary (GITHUB_STEP_SUMMARY, appended to): the session,
        and its comparison, in Markdown."""
        path, step_summary = self.session.options.md_path, os.environ.get("GITHUB_STEP_SUMMARY")
        if not (path or step_summary) or not self.written:
            return
        from ..report.markdown import SessionPart, session_markdown

        many = len(self.written) > 1
        text = session_markdown(
            [
                SessionPart(w.document, w.comparison, w.label if many else None, w.results_path, w.report_path)
                for w in self.written
            ]
        )
        if self.matrices:
            from ..report.matrix import markdown

            text = "\n".join([*(markdown(m.matrix, m.rows) for m in self.matrices), text])
        if path:
            target = Path(path).absolute()
            self.saved(target, lambda: write_atomic(target, text))
        if step_summary:
            self.saved(Path(step_summary), lambda: append(Path(step_summary), text + "\n"), record=False)

    def labelled(self, document: SuiteResult, folder: ResultsFolder | None) -> Any:
        """A person's labels of this folder's runs, measured against its judges (results.calibration), for the
        report; a regrade keeps the labels of the folder it regraded."""
        if folder is None:
            return None
        from ..results.calibration import folder_calibration
        from ..results.labels import carry_labels

        stored = self.session.stored
        if stored is not None:
            carry_labels(stored.folder.path, folder.path)
        return folder_calibration(folder.path, document)

    def trend(self, document: SuiteResult, eval_root: Path | None, folder: ResultsFolder | None) -> Any:
        """The report's trend (history.Trend): this session against the last sessions in its eval dir's results
        folder."""
        if eval_root is None:
            return None
        exclude = [folder.path] if folder is not None else []
        past = history.scan([eval_root / RESULTS_DIR], limit=history.HISTORY_LIMIT, exclude=exclude)
        try:
            return history.trend(document, [session.document for session in past.sessions])
        except (TypeError, ValueError, AttributeError):  # a past document of the wrong shape: no trend, still a report
            return None


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def output_path_problem(options: EvalOptions) -> str | None:
    """What keeps --json PATH or --report PATH from being written, found before any run (money) is spent."""
    paths = (
        ("--json", options.json_path),
        ("--report", options.report),
        ("--md", options.md_path),
        ("--skill-creator-benchmark", options.benchmark_path),
    )
    for flag, value in paths:
        if not value or value == "-":
            continue
        path = Path(value).absolute()
        if path.is_dir():
            return f"Error: {flag} {value}: that is a folder — name a file, such as {path / {'--json': 'results.json', '--md': 'summary.md', '--skill-creator-benchmark': 'benchmark.json'}.get(flag, 'report.html')}"
        parent = next(p for p in path.parents if p.exists())
        if not parent.is_dir():
            return f"Error: {flag} {value}: {parent} is a file, so no folder can be made there for it"
        if not os.access(parent, os.W_OK):
            return f"Error: {flag} {value}: {parent} is not writable"
    if options.output_dir and Path(options.output_dir).exists() and not Path(options.output_dir).is_dir():
        return f"Error: --output-dir {options.output_dir}: that is a file, not a folder"
    return None
