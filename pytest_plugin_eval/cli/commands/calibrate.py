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

from ...analysis.compare import CompareError, read_document
from ...core.errors import UsageError
from ...core.problems import SpecError
from ...report.calibration import calibration_lines
from ...results.calibration import Calibration, Session, calibrate
from ...results.labels import LABELS_FILE, labels_path, read_labels
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
        help="also redraw each folder's report.html with every judged grader's agreement and corrected rates (its "
        "trend is redrawn from the sessions before it; a --compare-to section is not)",
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


def read_sessions(folders: list[str], labels_file: str | None) -> list[Session]:
    if labels_file and len(folders) > 1:
        raise Refused(
            "plugin-eval calibrate: error: --labels goes with one results folder (each folder has its own labels.json)"
        )
    sessions: list[Session] = []
    for name in folders:
        folder = Path(name)
        if any(folder.resolve() == s.folder.resolve() for s in sessions):
            continue  # the same folder twice (a glob and its name): its labels count once
        if not folder.is_dir():
            raise Refused(
                f"Error: {name}: not a results folder — calibrate reads a folder's {RESULTS_FILE} and its {LABELS_FILE}"
            )
        try:
            document = read_document(folder)
        except CompareError as e:
            raise Refused(f"Error: {e}") from None
        labels = read_labels(Path(labels_file) if labels_file else labels_path(folder))
        sessions.append(Session(folder, document, labels))
    return sessions


def calibrate_command(argv: list[str]) -> int:
    try:
        args = command_parser().parse_args(argv)
        if (args.scripted or args.judge_model or args.claude) and not args.controls:
            raise Refused("plugin-eval calibrate: error: --scripted, --judge-model and --claude go with --controls")
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
                sessions, args.scripted, args.judge_model, say=_say_to(args.json), claude=args.claude
            )
            result.findings = control_findings(result.controls)
        except UsageError as e:
            print(e, file=sys.stderr)
            return 1
    status = _write(result, args.json)
    if args.report:
        from ...report.calibrated import redraw_report

        shown = any(g.n or g.stale for g in result.graders)
        note = "each judged grader's agreement with the labels" if shown else "no labels to show beside it"
        for session in sessions:
            _say_to(args.json)(f"Updated {redraw_report(session, result)} ({note})")
    return status


def _say_to(json_target: str | None):
    out = sys.stderr if json_target == "-" else sys.stdout
    return lambda line: print(line, file=out)


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
    return 2 if any(c.get("passed") for c in result.controls or []) else 0
