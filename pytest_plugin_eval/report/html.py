"""The HTML report: the page's view (report.page) laid out by the Jinja templates in report/templates.

`render_report` makes one self-contained page (the CSS inlined, no script, no external resource, every collapsible
part a `<details>` block) that reads the same offline, in any browser and on paper; `write_report` writes it
atomically. `summary_html`, `run_html` and `conversation_html` make parts to embed in another page (pytest-html's
report): the same CSS, scoped under `.plugin-eval`, and the content in an element of that class.

Only this module imports jinja2 at its top, and only code that writes a report imports this module (report/md.py,
the Markdown pages, imports it when it renders one).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

import jinja2
from markupsafe import Markup

from ..results.calibration import Calibration
from ..results.comparison import Comparison
from ..results.history import Trend
from ..results.model import RunResult, SuiteResult
from ..results.store import write_atomic
from . import comparison as compared
from . import page, view
from .calibration import judge_checks
from .conversation import conversation

CSS_FILE = "report.css"


class _Loader(jinja2.PackageLoader):
    """The templates are written one element a line, indented; the line breaks and the indentation are for
    whoever reads the template, not for the page (whitespace between tags would show as gaps between inline
    elements). So a template's line breaks go, with the indentation after them; a Jinja tag stays on one line."""

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        if template.endswith(".j2"):
            source = re.sub(r"\n[ \t]*", "", source)
        return source, filename, uptodate


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=_Loader(__package__, "templates"), autoescape=True, undefined=jinja2.StrictUndefined
    )
    # The formats the terminal table uses too (view), for the numbers of the shared per-case rows.
    env.filters.update(score=view.score, signed=view.signed, spread=view.spread, percent=view.percent, usd=view.usd)
    return env


@lru_cache(maxsize=1)
def _css() -> Markup:
    # Our own file, inlined in <style> as it is (escaping would break its quotes).
    return Markup((resources.files(__package__) / "templates" / CSS_FILE).read_text(encoding="utf-8"))


def _render(template: str, **context) -> str:
    return _environment().get_template(template).render(css=_css(), **context)


def render_page(template: str, **context) -> str:
    """A page of templates/ from its view: the pages made above report/ (tune's) and beside it (the matrix's)."""
    return _render(template, **context)


def render_report(
    document: SuiteResult,
    history: Trend | None = None,
    comparison: Comparison | None = None,
    calibration: Calibration | None = None,
) -> str:
    """The whole page for one results document, reading each run's kept trace from its tracePath; `history`:
    the trend over earlier comparable sessions (results.history.trend); `comparison`: this session against an
    earlier one (--compare-to), shown after the summary; `calibration`: its judged graders against a person's
    labels and its answers to the controls (plugin-eval calibrate), shown with each grader, and the controls it passed
    as findings of their case."""
    shown = compared.view(comparison) if comparison is not None else None
    judge = judge_checks(calibration) if calibration is not None else None
    return _render("page.html.j2", page=page.page(document, history, judge), comparison=shown) + "\n"


def write_report(
    document: SuiteResult,
    path: Path,
    history: Trend | None = None,
    comparison: Comparison | None = None,
    calibration: Calibration | None = None,
) -> None:
    """Render, then write atomically (never half a page; an old report stays whole if rendering fails)."""
    write_atomic(Path(path), render_report(document, history, comparison, calibration))


def comparison_page(comparison: Comparison, pairwise=None) -> str:
    """`plugin-eval compare --html`: the comparison section on a page of its own, and the pairwise section (a
    results.pairwise.PairwiseComparison) when there is one."""
    from . import pairwise as paired

    shown = paired.view(pairwise) if pairwise is not None else None
    return _render("compare_page.html.j2", comparison=compared.view(comparison), pairwise=shown) + "\n"


def summary_html(document: SuiteResult) -> str:
    """The header, the cards and the per-case table, for the summary of a pytest-html report."""
    return _render("embed.html.j2", summary=page.top(document, linked=False))


def run_html(run: RunResult, prompt: str) -> str:
    """One run — graders, judge votes, transcript — for its row of a pytest-html report."""
    return _render("embed.html.j2", one_run=page.run(run, "run", prompt))


def conversation_html(trace_text: str, prompt: str) -> str:
    """One run's trace as a readable conversation, with its styles (usable outside the report page)."""
    return _render("embed.html.j2", transcript=conversation(trace_text, prompt))


def review_html(review) -> str:
    """`plugin-eval review`'s page (a report.review.ReviewPage): its styles and script inlined, no external resource,
    so that an exported copy opens with no network."""
    templates = resources.files(__package__) / "templates"
    return (
        _render(
            "review.html.j2",
            page=review,
            review_css=Markup(templates.joinpath("review.css").read_text(encoding="utf-8")),
            js=Markup(templates.joinpath("review.js").read_text(encoding="utf-8")),
            data=Markup(review.data),
        )
        + "\n"
    )
