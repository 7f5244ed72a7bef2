"""`plugin-eval calibrate --report`: a results folder's report.html drawn again with every judged grader's agreement
with the labels and its corrected rates; its trend is drawn again from the sessions before it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..results.calibration import Calibration, Session


def redraw_report(session: Session, result: Calibration) -> Path:
    """The folder's report.html, written again; its path."""
    from ..results import history
    from ..results.store import REPORT_FILE
    from .html import write_report

    document = session.document
    past = history.scan([session.folder.parent], limit=history.HISTORY_LIMIT, exclude=[session.folder])
    earlier = [s.document for s in past.sessions if s.document.started_at < document.started_at]
    try:
        trend = history.trend(document, earlier)
    except (TypeError, ValueError, AttributeError):  # a past document of the wrong shape: no trend, still a report
        trend = None
    target = session.folder / REPORT_FILE
    write_report(document, target, trend, None, result)
    return target


def redraw_reports(sessions: list[Session], result: Calibration) -> Iterator[Path]:
    """Each session's report.html written again, yielded as it is written (`calibrate --report`)."""
    for session in sessions:
        yield redraw_report(session, result)
