"""Markdown pages from a view and a template (report/templates/*.md.j2), as the HTML pages are made: rendered as
text (no HTML escaping), each line as the template writes it — a Jinja tag alone on its line leaves no line. The
filters make a view's text safe in Markdown: `cell` (one line, pipes escaped, a blank cell kept), `inline` (pipes
escaped, line breaks gone, spaces kept). jinja2 is imported only when a page is rendered."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def cell(text: str) -> str:
    """Text safe in a table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|") or " "


def code(text: str) -> str:
    return f"`{str(text).replace('`', '')}`"


def inline(text: str) -> str:
    """Text on one line of Markdown: pipes escaped, line breaks made spaces."""
    return str(text).replace("|", "\\|").replace("\n", " ")


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        autoescape=False,  # Markdown, not HTML: a view's text is made safe by the filters
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(cell=cell, inline=inline, code=code, rstrip=str.rstrip)
    return env


def render_markdown(template: str, **context: Any) -> str:
    """A Markdown page of templates/ from its view, ending with one line break."""
    return _environment().get_template(template).render(**context).rstrip() + "\n"
