"""What `plugin-eval --help` and `--version` print: the usage, every option of the table the pytest plugin
registers with its help, this package's version and the Claude Code a session would run."""

from __future__ import annotations

import importlib.metadata
import textwrap

from ..engine.options import OPTIONS
from ..run.agent import ClaudeNotFound, claude_version, find_claude

USAGE = """usage: plugin-eval [TARGET] [options] [-- pytest arguments]
       plugin-eval triggers [TARGET] [options]
       plugin-eval tune SKILL [TARGET] --trust-plugin [--rounds N] [--candidates N] [--max-cost-usd X] [--apply]
       plugin-eval init [TARGET] [--trust-plugin] [--from FILE…]
       plugin-eval init --draft [TARGET] [--trust-plugin] [--from FILE…]
       plugin-eval init --bare NAME [--eval-dir DIR]
       plugin-eval init --triggers [TARGET] [--eval-dir DIR]
       plugin-eval check [TARGET] [--eval-dir DIR] [--json] [--strict] [--model M] [--judge-model M] [--scripted]
                         [--against REF] [--ablate C,…]
       plugin-eval import [TARGET] [--eval-dir DIR]
       plugin-eval entry NAME [MARKETPLACE] --into DIR
       plugin-eval merge DIR... [--output-dir DIR] [--json PATH]
       plugin-eval compare OLD NEW [--json [PATH]] [--md PATH] [--html PATH] [--level L] [--fail-on-worse]
                               [--pairwise [--scripted] [--judge-model M] [--max-cost-usd USD] [--claude PATH]]
       plugin-eval history [EVAL_DIR | PLUGIN_DIR] [--json] [--limit N]
       plugin-eval pr-comment RESULTS [--compare-to OLD] [--key NAME] [--baseline-name NAME] [--pr N] [--dry-run]
       plugin-eval review RESULTS [--port N] [--no-browser] [--export DIR]
       plugin-eval calibrate RESULTS... [--json OUT] [--labels FILE] [--report] [--controls [--scripted] [--judge-model M] [--claude PATH]]
       plugin-eval --version

Evaluate a Claude Code plugin: run its eval cases with and without it, grade the runs, report the difference.

commands:
  (none)       run the eval suite of TARGET: a plugin folder (default .), or an installed plugin's
               name or name@marketplace
  triggers     run only the suite's trigger sets: does Claude consult each skill for the queries that
               should fire it, and leave it for the near-misses? (runs with the plugin only, each stopped
               at its first skill call)
  tune         a better description for SKILL, proposed by Claude from its trigger set's train failures,
               chosen on validation by a paired interval, scored once on test (plugin-eval tune --help)
  init         write the eval suite with Claude Code, interviewing you at a terminal (the plugin stays
               read-only; every file is checked); --draft: a first draft without questions, from the plugin
               and real prompts (--from prompts.txt or session .jsonl); --bare NAME: one blank case;
               --triggers: a trigger set per skill and command, queries to fill in
  check        load the suite and check its floor (a should-not-fire case, an outcome grader per case,
               runs >= 3, two arms) without running it: exit 0 or 1, each problem named
  import       write skill-creator's evals/evals.json of each skill as case folders (prompt.md, graders/*.md,
               context files), leaving existing folders as they are
  entry        write a strict: false marketplace entry out as the plugin folder Claude Code installs from
               it (only the components the entry names), to evaluate it as installed
  merge        combine the results folders of --shard K/N jobs into one session's results
  compare      did a change help? two sessions' results side by side: per case the change in WITH and
               in Δ with an interval and a verdict, graders whose pass rate moved, cost; --fail-on-worse;
               --pairwise: a blind judge compares the two sessions' outputs run by run, in both orders
  review       label the judged verdicts of a results folder in a local page (127.0.0.1): pass or fail,
               a note and failure codes per verdict, saved to the folder's labels.json; --export DIR: a
               static copy that works with no server
  calibrate    can I trust the judge? each llm/baseline grader against your labels: TPR and TNR with
               intervals, kappa, WITH, W/OUT and delta corrected for the judge's errors; --controls: answers
               the judge must fail
  history      list the past sessions in the suite's results folder, newest first: version, git commit,
               model, score, mean Δ, trigger queries, the median case's turns and tokens, cost
  pr-comment   post the results on the pull request as one comment per suite, updated in place on every
               push (GitHub's API, from GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_TOKEN)

options (claude plugin eval's; list options also take comma-separated values, --allow-tools=Write,Edit):
"""


def help_text() -> str:
    """USAGE and every option of the table the pytest plugin registers, with its help."""

    def spelling(o) -> str:
        value = f" [{o.metavar}]" if o.kind == "optional" else f" {o.metavar}" if o.metavar else ""
        return ", ".join(o.names) + value + (" …" if o.kind == "list" else "")

    rows = [(spelling(o), o.help) for o in OPTIONS]
    rows += [
        ("--verbose", "A line per run with its score and failing graders (pytest's --verbose; traces are always kept)"),
        ("--version", "Print plugin-eval's version and the Claude Code binary it would use"),
        ("-h, --help", "Show this help"),
    ]
    width = max(len(left) for left, _ in rows) + 4
    lines = [
        textwrap.fill(
            text, 118, break_on_hyphens=False, initial_indent=f"  {left:<{width - 2}}", subsequent_indent=" " * width
        )
        for left, text in rows
    ]
    return USAGE + "\n".join(lines)


def package_version() -> str:
    try:
        return importlib.metadata.version("pytest-plugin-eval")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def version_text(explicit_claude: str | None = None) -> str:
    """Two lines: this package's version, then the Claude Code a session would run (and its version)."""
    try:
        claude = find_claude(explicit_claude)
    except ClaudeNotFound as e:
        return f"plugin-eval {package_version()}\nClaude Code: none found — {str(e).split(' — ', 1)[-1]}"
    return f"plugin-eval {package_version()}\nClaude Code {claude_version(claude)} ({claude})"
