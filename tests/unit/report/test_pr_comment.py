"""The pull request comment's text (report.pr_comment): the marker, the verdict line, new failures first, what
moved against the baseline (cases and trigger queries), a partial session, the cost and the run's link."""

from __future__ import annotations

from dataclasses import replace

from helpers.documents import case_result, suite_result

from pytest_plugin_eval.analysis.compare import compare
from pytest_plugin_eval.report.pr_comment import MAX_CHARS, CommentPart, comment_text, marker, suite_key
from pytest_plugin_eval.results.triggers import QueryResult, TriggerRun, TriggerSetResult

RUN = "https://github.example/o/r/actions/runs/7"
GREET = "greeter:greet"


def part(old, new) -> CommentPart:
    return CommentPart(new, compare(old, new, old_source="main/", new_source="pr/"), old)


def text_of(old, new, **more) -> str:
    return comment_text([part(old, new)], "greeter", RUN, baseline="main", **more)


def test_the_marker_comes_first_and_names_the_suite():
    doc = suite_result(case_result("greet", [1, 1, 1], [0, 0, 0]))
    text = comment_text([CommentPart(doc)], suite_key(doc), RUN)
    assert suite_key(doc) == "greeter"
    assert text.splitlines()[0] == marker("greeter") == "<!-- plugin-eval:pr-comment greeter -->"
    assert f"[The run, its summary and the results folder]({RUN})" in text


def test_a_key_cannot_close_the_hidden_comment():
    assert marker("smoke --> <b>x</b>") == "<!-- plugin-eval:pr-comment smoke-b-x-/b -->"
    assert marker("") == "<!-- plugin-eval:pr-comment suite -->"


def test_a_regression_names_the_new_failure_first_and_what_moved():
    old = suite_result(
        case_result("greet", [1] * 10, [0] * 10),
        case_result("steady", [1] * 10, [0] * 10),
        case_result("broken", [0] * 10, [0] * 10),
    )
    new = suite_result(
        case_result("broken", [0] * 10, [0] * 10),
        case_result("greet", [0] * 10, [0] * 10),
        case_result("steady", [1] * 10, [0] * 10),
        case_result("fresh", [1] * 10, [0] * 10),
    )
    text = text_of(old, new)
    head = text.split("\n\n", 2)[1]
    assert head.startswith("**❌ 2 of 4 case(s) below the threshold · 🔴 worse than main: 1 case**")
    failing = text.split("### Failing", 1)[1].split("###", 1)[0]
    lines = [line for line in failing.splitlines() if line.startswith("- ")]
    assert lines[0].startswith("- 🆕 **greet** — ")  # passed on main: a new failure, first
    assert lines[1].startswith("- **broken** (failing in the baseline too) — ")
    moved = text.split("### What moved against main", 1)[1]
    row = next(line for line in moved.splitlines() if line.startswith("| greet"))
    assert "1.00 → 0.00" in row and "+1.00 → 0.00" in row and "🔴 worse" in row
    assert "| steady" not in moved.split("\n\n")[1]  # only what moved is in the table
    assert "2 case(s) compared with main: no detectable change." in text
    assert "\n\nNew cases: fresh\n\n" in text
    assert "cost $0.40 (baseline $0.30)" in text


def test_an_improvement_is_green():
    old = suite_result(case_result("greet", [0] * 10, [0] * 10))
    new = suite_result(case_result("greet", [1] * 10, [0] * 10))
    text = text_of(old, new)
    assert "**✅ 1 case(s) passed · 🟢 better than main: 1 case**" in text
    assert "### Failing" not in text
    row = next(line for line in text.splitlines() if line.startswith("| greet"))
    assert "0.00 → 1.00" in row and "🟢 better" in row


def test_no_change_says_so():
    doc = suite_result(case_result("greet", [1] * 5, [0] * 5))
    text = text_of(doc, doc)
    assert "**✅ 1 case(s) passed · no detectable change from main**" in text
    assert "What moved" not in text


def query(qid: str, should_fire: bool, fired: int, runs: int = 5) -> QueryResult:
    made = [TriggerRun(i, i < fired, GREET if i < fired else None, "event", cost_usd=0.001) for i in range(runs)]
    return QueryResult(qid, f"the {qid} query", should_fire, made)


def trigger_set(*queries: QueryResult) -> TriggerSetResult:
    return TriggerSetResult(
        GREET, "greet", "skill", "Greet.", "evals/triggers.yaml", "yaml", 0.5, 5, 5, queries=list(queries)
    )


def test_a_trigger_query_that_stopped_firing():
    old = replace(suite_result(), triggers=[trigger_set(query("hello", True, 5), query("taxes", False, 0))])
    new = replace(suite_result(), triggers=[trigger_set(query("hello", True, 0), query("taxes", False, 0))])
    text = text_of(old, new)
    assert "**❌ 1 trigger query on the wrong side · 🔴 worse than main: 1 trigger query**" in text
    row = next(line for line in text.splitlines() if line.startswith("| greet"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:4] == ["greet", "hello", "should fire", "5/5 → 0/5"]
    assert cells[5] == "🔴 stopped firing"
    assert "taxes" not in text.split("What moved", 1)[1].split("<details>")[0]  # it did not move
    assert "1/2 trigger queries on the right side" in text
    assert "1 trigger query compared with main: no detectable change." in text
    assert "<details><summary>Every trigger query</summary>" in text


def test_a_partial_session_says_so_before_anything_else():
    old = suite_result(case_result("greet", [1] * 3, [0] * 3))
    new = suite_result(case_result("greet", [1] * 3, [0] * 3), partial="cost_ceiling")
    text = text_of(old, new)
    assert "**⚠ partial results (cost ceiling hit)" in text
    assert "> ⚠ **Partial results** (cost ceiling hit)" in text and "rerun rather than blame the plugin" in text
    assert "> ⚠ **Not measured alike**" in text  # compare's own warning about a partial side


def test_without_a_baseline_the_failures_are_not_called_new():
    doc = suite_result(case_result("greet", [0, 0, 0], [0, 0, 0]))
    text = comment_text([CommentPart(doc)], "greeter")
    assert "**❌ 1 of 1 case(s) below the threshold**" in text
    assert "- **greet** — " in text and "🆕" not in text and "baseline" not in text
    assert "<details><summary>Every case</summary>" in text
    assert "The run" not in text  # no link outside a CI run


def test_a_matrix_has_a_section_per_model():
    a = suite_result(case_result("greet", [1] * 3, [0] * 3))
    b = suite_result(case_result("greet", [0] * 3, [0] * 3))
    text = comment_text([CommentPart(a, label="opus"), CommentPart(b, label="haiku")], "greeter")
    assert "### opus" in text and "### haiku" in text
    assert text.index("✅ 1 case(s) passed") < text.index("### haiku") < text.index("❌ 1 of 1")


def test_a_comment_too_long_for_github_folds_the_table_away():
    cases = [case_result(f"case-{i:04d}-" + "x" * 60, [0] * 3, [0] * 3) for i in range(700)]
    text = comment_text([CommentPart(suite_result(*cases))], "greeter")
    assert len(text) <= MAX_CHARS
    assert text.startswith(marker("greeter"))
