"""`plugin-eval calibrate RESULTS… [--json OUT]`: can I trust the judge? Each judged grader against a person's labels.

    plugin-eval calibrate evals/results/<timestamp>/ [more folders…] [--json calibration.json]
    plugin-eval calibrate evals/results/<timestamp>/ --labels my-labels.json
    plugin-eval calibrate evals/results/<timestamp>/ --controls [--scripted] [--judge-model M]
    plugin-eval calibrate evals/results/<timestamp>/ --report     # the folder's report.html shows the agreement

Each RESULTS is a results folder; its labels are its `labels.json` (written by `plugin-eval review`, by hand or by
a script), or with one folder the file `--labels` names. The numbers are results.calibration's, pooled over the
folders; `--json` writes them as a document (`-`: on stdout alone). `--controls` also asks the judge about answers
it must fail (grade.controls) and reports a judge that passes one. Exit 0; 1 on a user error (a folder without
results, a labels file with a bad key); 2 when a control passed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...analysis.calibration_input import read_sessions
from ...core.errors import UsageError
from ...core.problems import SpecError
from ...report.calibration import calibration_lines
from ...results.calibration import Calibration, calibrate
from ...results.labels import LABELS_FILE
from ...results.store import RESULTS_FILE, document_text, write_atomic
from ..parser import CommandParser, Refused


def command_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="plugin-eval calibrate",
        description="Measure each llm and baseline grader's judge against your labels: TPR and TNR with Wilson "
        "intervals, Cohen's kappa, and its pass rates (WITH, W/OUT, delta) corrected for its errors.",
    )
    parser.add_argument(
        "folders", metavar="RESULTS", nargs="+", help=f"results folders (holding {RESULTS_FILE} and {LABELS_FILE})"
    )
    parser.add_argument(
        "--labels",
        metavar="FILE",
        default=None,
        help=f"with one results folder: read its labels from FILE, not {LABELS_FILE}",
    )
    parser.add_argument(
        "--json",
        metavar="OUT",
        default=None,
        help="also write the measurements (and with --controls, the controls and their findings) as a JSON "
        "document to OUT (-: stdout alone)",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="also redraw each folder's report.html with every judged grader's agreement and corrected rates, and "
        "with --controls its judge's answers to them and the findings of those it passed (its trend is redrawn from "
        "the sessions before it; a --compare-to section is not)",
    )
    parser.add_argument(
        "--controls",
        action="store_true",
        help="also ask each judged grader's judge about answers it must fail (empty, 'say PASS', the rubric echoed; "
        "for baseline, the answers swapped)",
    )
    parser.add_argument(
        "--scripted", action="store_true", help="with --controls: the judge answers from each case's scripted.yaml"
    )
    parser.add_argument("--judge-model", default=None, metavar="M", help="with --controls: the judge model to ask")
    parser.add_argument(
        "--claude",
        default=None,
        metavar="PATH",
        help="with --controls: the Claude Code binary the judge asks through when the API cannot be asked directly "
        "(default: the bundled one, else `claude` on PATH)",
    )
    return parser


def calibrate_command(argv: list[str]) -> int:
    try:
        args = command_parser().parse_args(argv)
        if (args.scripted or args.judge_model or args.claude) and not args.controls:
            raise Refused("plugin-eval calibrate: error: --scripted, --judge-model and --claude go with --controls")
        if args.labels and len(args.folders) > 1:
            raise Refused(
                "plugin-eval calibrate: error: --labels goes with one results folder (each folder has its own "
                "labels.json)"
            )
        sessions = read_sessions(args.folders, args.labels)
    except (UsageError, SpecError) as e:
        print(e if isinstance(e, UsageError) else f"Error: {e}", file=sys.stderr)
        return 1
    result = calibrate(sessions)
    if args.controls:
        from ...analysis.controls import run_controls
        from ...results.control_findings import control_findings

        try:
            result.controls = run_controls(
                sessions,
                args.scripted,
                args.judge_model,
                say=lambda line: print(line, file=_out(args.json)),
                claude=args.claude,
            )
            result.findings = control_findings(result.controls)
        except UsageError as e:
            print(e, file=sys.stderr)
            return 1
    status = _write(result, args.json)
    if args.report:
        from ...report.calibrated import redraw_reports

        labelled = any(g.n or g.stale for g in result.graders)
        parts = [
            *(["agreement with the labels"] if labelled else []),
            *(["answers to the controls"] if args.controls else []),
        ]
        shown = f"each judged grader's {' and '.join(parts)}" if parts else "no labels to show beside it"
        for target in redraw_reports(sessions, result):
            print(f"Updated {target} ({shown})", file=_out(args.json))
    return status


def _out(json_target: str | None):
    """Where lines go: stderr when stdout holds the document alone (--json -)."""
    return sys.stderr if json_target == "-" else sys.stdout


def _write(result: Calibration, json_target: str | None) -> int:
    text = document_text(result.to_json())
    if json_target == "-":
        print("\n".join(calibration_lines(result)), file=sys.stderr)
        sys.stdout.write(text)
    else:
        print("\n".join(calibration_lines(result)))
        if json_target:
            write_atomic(Path(json_target), text)
            print(f"Wrote {json_target}")
    return 2 if any(c.passed for c in result.controls or []) else 0
