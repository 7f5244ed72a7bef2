"""Unit tests for the controller's half of an eval session (pytest_plugin_eval.session.controller): what it gathers
from the reports, the results document it builds, the exit status it sets, and the files it writes.

No pytester and no binary: the Controller is built around a minimal fake of the EvalSession (only what the
controller reads), and fed report-like objects carrying what `wire` puts on real reports."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_plugin_eval.core.paths import display_path
from pytest_plugin_eval.load.case import CaseLoadError
from pytest_plugin_eval.report import html as report_html
from pytest_plugin_eval.results import scoring
from pytest_plugin_eval.results.model import (
    CaseResult,
    GraderInfo,
    GraderResult,
    LoadErrorEntry,
    PluginInfo,
    RunResult,
    SkippedRun,
    SuiteInfo,
    SuiteResult,
)
from pytest_plugin_eval.results.rerun import CACHE_KEY
from pytest_plugin_eval.results.store import ResultsFolder, document_text, read_results, write_json
from pytest_plugin_eval.run.agent import ClaudeNotFound
from pytest_plugin_eval.session import controller as controller_module
from pytest_plugin_eval.session import wire
from pytest_plugin_eval.session.controller import Controller, merge_suite
from pytest_plugin_eval.session.interrupts import Terminated
from pytest_plugin_eval.session.options import EvalOptions

STARTED_AT = "2026-03-04T05:06:07.890Z"
AUTH_STOP = (
    "the first run's credentials were rejected — every remaining run would fail the same way, so the "
    "session stops here. Set ANTHROPIC_API_KEY (or your provider's credentials), or pass --scripted to "
    "check the suite offline"
)


# ---- fakes ---------------------------------------------------------------------------------------------------


class FakeCache:
    def __init__(self, values: dict | None = None):
        self.values = dict(values or {})

    def get(self, key, default):
        return self.values.get(key, default)

    def set(self, key, value):
        self.values[key] = value


class FakeConfig:
    def __init__(self, numprocesses=None, lf=False, plugins=None, cache=None, publish=False):
        self.option = SimpleNamespace(eval_publish_report=publish, numprocesses=numprocesses)
        self.options = {"lf": lf}
        self.plugins = dict(plugins or {})
        self.pluginmanager = SimpleNamespace(getplugin=self.plugins.get)
        self.cache = cache

    def getoption(self, name, default=None):
        return self.options.get(name, default)


class FakeSession:
    """What the Controller reads of an EvalSession, and nothing else."""

    def __init__(self, tmp_path: Path, options: EvalOptions | None = None, config: FakeConfig | None = None):
        self.options = options or EvalOptions()
        self.config = config or FakeConfig()
        self.started = time.monotonic()
        self.started_at = STARTED_AT
        self.active = True
        self.eval_roots: list[Path] = []
        self.judge_model = "claude-haiku-5-5"
        self.stored = None
        self.ledger = None
        self.pytest_session = SimpleNamespace(shouldstop=False)
        self.folder = ResultsFolder(tmp_path / "results" / "now")
        # --lf: what the session loads for the cases of the previous document.
        self.loadable: dict[str, CaseResult] = {}
        self.roots: dict[Path, Path] = {}

    @property
    def claude(self) -> Path:
        raise ClaudeNotFound("no Claude Code binary found")

    def results_folder(self, eval_root):
        return self.folder if eval_root is not None else None

    def ablation_for(self, has_plugin: bool) -> str:
        return self.options.ablation or ("with-without" if has_plugin else "none")

    def eval_root(self, path: Path):
        return self.roots.get(path)

    def load(self, folder: Path, root: Path):
        if folder.name not in self.loadable:
            raise CaseLoadError(folder, [])
        return folder.name

    def case_result(self, loaded: str) -> CaseResult:
        return self.loadable[loaded]


@pytest.fixture(autouse=True)
def html_reports(monkeypatch) -> list[tuple]:
    """The HTML page is the report package's business: here only where the controller asks for it is checked."""
    written: list[tuple] = []
    monkeypatch.setattr(report_html, "write_report", lambda document, path: written.append((document, path)))
    return written


@pytest.fixture
def session(tmp_path) -> FakeSession:
    return FakeSession(tmp_path)


# ---- report-like objects -------------------------------------------------------------------------------------


def header(case_dir: str = "evals/a", *, name: str | None = None, prompt: str = "Say hi.") -> CaseResult:
    return CaseResult(
        name=name or Path(case_dir).name,
        dir=case_dir,
        source="prose",
        prompt=prompt,
        runs_per_case=3,
        timeout_seconds=300,
        max_turns=10,
        graders=[GraderInfo("says-hi", "regex", 1, {"pattern": "hi"})],
        runs_per_arm=2,
    )


def suite_of(root: str = "/suite", *plugins: str, ablation: str = "with-without") -> SuiteInfo:
    return SuiteInfo(root=root, ablation=ablation, plugins=[PluginInfo(p, f"/suite/{p}", "1.0.0") for p in plugins])


def run(arm: str = "with", index: int = 1, score: float | None = 1.0, **kw) -> RunResult:
    notes = kw.pop("notes", [])
    result = RunResult(arm, index, score=score, passed=score == 1.0, **kw)
    result.notes = list(notes)
    return result


def run_report(
    case_dir: str = "evals/a",
    result: RunResult | None = None,
    *,
    notices=(),
    suite=None,
    eval_root: str = "/suite/evals",
    case: CaseResult | None = None,
) -> SimpleNamespace:
    result = result or run()
    report = wire.RunReport(
        case=case or header(case_dir),
        run=result,
        suite=suite or suite_of("/suite", "p"),
        eval_root=eval_root,
        notices=list(notices),
    )
    data = json.loads(json.dumps(report.to_json()))  # as it crosses xdist's channel
    return SimpleNamespace(
        when="call", failed=not result.passed, keywords={"plugin_eval": 1, "a": 1}, **{wire.RUN_ATTR: data}
    )


def skip_report(case: str, arm: str, index: int, reason: str = "cost_ceiling") -> SimpleNamespace:
    skipped = SkippedRun(case, f"evals/{case}", arm, index, reason)
    return SimpleNamespace(
        when="call", failed=False, keywords={"plugin_eval": 1}, **{wire.SKIP_ATTR: skipped.to_json()}
    )


def load_error_report(case_dir: str, message: str = "prompt.md: is empty", eval_root: str = "/suite/evals"):
    entry = LoadErrorEntry(
        case=Path(case_dir).name,
        dir=case_dir,
        message=message,
        problems=[{"file": f"{case_dir}/prompt.md", "key": "prompt", "message": "is empty"}],
    )
    return SimpleNamespace(
        when="collect",
        failed=True,
        keywords={},
        **{wire.LOAD_ERROR_ATTR: wire.LoadErrorReport(entry, eval_root).to_json()},
    )


def finish(controller: Controller) -> SimpleNamespace:
    pytest_session = SimpleNamespace(exitstatus=None)
    controller.pytest_sessionfinish(pytest_session)
    return pytest_session


def feed(controller: Controller, *reports) -> None:
    for report in reports:
        if getattr(report, wire.LOAD_ERROR_ATTR, None) is not None or report.when == "collect":
            controller.pytest_collectreport(report)
        else:
            controller.pytest_runtest_logreport(report)


def finished(session, *reports) -> tuple[Controller, SimpleNamespace]:
    controller = Controller(session)
    feed(controller, *reports)
    return controller, finish(controller)


# ---- the document --------------------------------------------------------------------------------------------


def test_cases_are_sorted_by_path_and_arms_ordered(session):
    controller, _ = finished(
        session,
        run_report("evals/b", run("without", 1, 0.0)),
        run_report("evals/b", run("with", 2, 1.0)),
        run_report("evals/a-b", run("with", 1, 1.0)),
        run_report("evals/b", run("with", 1, 1.0)),
        run_report("evals/a/z", run("with", 1, 1.0)),
        run_report("evals/b", run("without", 2, 1.0)),
    )
    document = controller.document.to_json()
    # By path parts, not by string: evals/a/z sorts before evals/a-b.
    assert [case["dir"] for case in document["cases"]] == ["evals/a/z", "evals/a-b", "evals/b"]
    b = document["cases"][2]
    assert list(b["arms"]) == ["with", "without"]
    assert [[r["index"] for r in runs] for runs in b["arms"].values()] == [[1, 2], [1, 2]]
    assert b["aggregates"]["score"] == 1.0 and b["aggregates"]["scoreWithout"] == 0.5
    assert b["aggregates"]["delta"] == 0.5
    assert document["aggregates"] == {
        "casesTotal": 3,
        "casesPassed": 3,
        "overallScore": 1.0,
        "overallPassRate": 1.0,
        "meanDelta": 0.5,
    }
    assert document["partial"] is False and "partialReason" not in document


def test_the_document_carries_the_session(session, monkeypatch):
    monkeypatch.setattr(controller_module, "claude_version", lambda path: "2.1.327")
    session.__class__ = type("WithClaude", (FakeSession,), {"claude": Path("/bin/claude")})
    controller, _ = finished(
        session, run_report("evals/a", run(cost_usd=0.25)), run_report("evals/a", run("with", 2, 0.5, cost_usd=0.5))
    )
    document = controller.document
    assert (document.claude_version, document.started_at) == ("2.1.327", STARTED_AT)
    assert document.cost_usd == 0.75
    assert document.duration_seconds >= 0
    assert [c.aggregates.score for c in document.cases] == [0.75]


def test_claude_version_is_unknown_without_a_binary(session):
    controller, _ = finished(session, run_report())
    assert controller.document.claude_version == "unknown"


def test_a_regraded_session_names_the_stored_sessions_claude_and_folder(session):
    session.stored = SimpleNamespace(
        document=SimpleNamespace(claude_version="2.0.9"), folder=SimpleNamespace(path=Path("/old/results/x"))
    )
    controller, _ = finished(session, run_report())
    assert controller.document.claude_version == "2.0.9"
    assert controller.document.suite.regraded_from == "/old/results/x"


def test_suite_info_holds_the_options(tmp_path):
    options = EvalOptions(
        threshold=0.5,
        model="sonnet",
        judge_model="haiku",
        case_globs=("a*",),
        tags=("smoke", "x"),
        scripted=True,
        runs=2,
    )
    session = FakeSession(tmp_path, options, FakeConfig(numprocesses=3))
    controller, _ = finished(
        session,
        run_report("evals/a", suite=suite_of("/suite", "p")),
        run_report("evals/b", suite=suite_of("/other", "q", "p")),
    )
    assert controller.document.suite.to_json() == {
        "root": "/suite",
        "ablation": "with-without",
        "modelOverride": "sonnet",
        "judgeModel": "haiku",
        "judgeModelResolved": "claude-haiku-5-5",
        "caseFilter": "a*",
        "tagFilters": ["smoke", "x"],
        "scripted": True,
        "threshold": 0.5,
        "concurrency": 3,
        "runsOverride": 2,
        "plugins": [
            {"name": "p", "version": "1.0.0", "path": "/suite/p"},
            {"name": "q", "version": "1.0.0", "path": "/suite/q"},
        ],
    }


def test_several_case_globs_are_a_list_and_concurrency_wins_over_workers(tmp_path):
    options = EvalOptions(case_globs=("a*", "b?"), concurrency=4)
    controller, _ = finished(FakeSession(tmp_path, options, FakeConfig(numprocesses=2)), run_report())
    suite = controller.document.suite
    assert (suite.case_filter, suite.concurrency, suite.tag_filters, suite.model_override) == (
        ["a*", "b?"],
        4,
        None,
        None,
    )


def test_without_any_run_the_suite_is_the_first_eval_dirs_plugin(session):
    session.eval_roots = [Path("/work/plugin/evals")]
    controller, _ = finished(session)
    suite = controller.document.suite
    assert (suite.root, suite.ablation, suite.plugins) == ("/work/plugin", "none", [])


def test_merge_suite_keeps_the_first_and_adds_new_plugins():
    first = suite_of("/a", "p", ablation="none")
    merged = merge_suite(merge_suite(None, first), suite_of("/b", "q", "p"))
    assert (merged.root, merged.ablation, [p.name for p in merged.plugins]) == ("/a", "none", ["p", "q"])
    assert [p.name for p in first.plugins] == ["p"]


def test_load_errors_are_sorted_by_dir_and_kept_once(session):
    controller, _ = finished(
        session,
        run_report(),
        load_error_report("evals/z", "first"),
        load_error_report("evals/m"),
        load_error_report("evals/z", "second"),
    )
    errors = controller.document.to_json()["loadErrors"]
    assert [(e["dir"], e["message"]) for e in errors] == [("evals/m", "prompt.md: is empty"), ("evals/z", "first")]
    assert errors[0]["problems"] == [{"file": "evals/m/prompt.md", "key": "prompt", "message": "is empty"}]


def test_skipped_runs_are_sorted_by_case_arm_and_index(session):
    controller, _ = finished(
        session,
        run_report(),
        skip_report("b", "without", 1),
        skip_report("a", "without", 1),
        skip_report("a", "with", 2),
        skip_report("a", "with", 1),
    )
    assert [(r["dir"], r["arm"], r["index"], r["reason"]) for r in controller.document.to_json()["skippedRuns"]] == [
        ("evals/a", "with", 1, "cost_ceiling"),
        ("evals/a", "with", 2, "cost_ceiling"),
        ("evals/a", "without", 1, "cost_ceiling"),
        ("evals/b", "without", 1, "cost_ceiling"),
    ]


def test_notices_from_reports_and_runs_are_kept_once_in_order(session):
    controller, _ = finished(
        session,
        run_report("evals/a", run(notes=["model m has no list price"]), notices=["⚠ case a: Bash is gated", "n2"]),
        run_report("evals/a", run("with", 2, notes=["model m has no list price"]), notices=["⚠ case a: Bash is gated"]),
        run_report("evals/b", run(), notices=["n2", "n3"]),
    )
    assert controller.document.notices == ["⚠ case a: Bash is gated", "n2", "model m has no list price", "n3"]
    # A run's notes go to the session, not into the document's run.
    assert "notes" not in controller.document.to_json()["cases"][0]["arms"]["with"][0]


def test_a_reports_case_header_is_kept_from_the_first_run(session):
    controller, _ = finished(
        session,
        run_report(case=header("evals/a", name="first")),
        run_report(case=header("evals/a", name="second"), result=run("with", 2)),
    )
    assert [(c.name, len(c.runs())) for c in controller.document.cases] == [("first", 2)]


def test_the_same_api_error_everywhere_is_a_suite_hint(session):
    error = dict(error="exit 1: API Error: 529", error_kind="api")
    controller, _ = finished(
        session, run_report("evals/a", run(score=None, **error)), run_report("evals/b", run(score=None, **error))
    )
    assert controller.document.notices == [
        "💡 every run ended on the same API error (exit 1: API Error: 529): this is infrastructure — credentials, "
        "rate limits or the endpoint — not a regression of the plugin"
    ]


def test_cost_ceiling_notices(tmp_path):
    session = FakeSession(tmp_path, EvalOptions(max_cost_usd=1.0))
    controller, _ = finished(
        session,
        run_report("evals/a", run(cost_usd=0.5, skipped_paid_graders=True)),
        run_report("evals/b", run(cost_usd=0.25)),
        skip_report("b", "with", 2),
        skip_report("c", "with", 1),
    )
    assert controller.document.notices == [
        "⚠ cost ceiling $1 reached ($0.7500 spent): 2 run(s) not started, in b, c",
        "⚠ cost ceiling $1 crossed by runs in flight: 1 run(s) skipped their paid graders, which are left out of "
        "their scores",
    ]


def test_an_unpriced_judge_model_is_noticed_once_a_grader_was_judged(tmp_path, session):
    session.judge_model = "my-judge"
    judged = GraderResult("polite", True, 1, "judge votes: PASS PASS", judge_votes=[True, True])
    controller, _ = finished(session, run_report(result=run(graders=[judged])))
    assert controller.document.notices == [
        "judge model my-judge is not in the price table: its calls are priced as claude-opus-5-5"
    ]
    priced = FakeSession(tmp_path / "priced")  # the default judge model has a list price
    controller, _ = finished(priced, run_report(result=run(graders=[judged])))
    assert controller.document.notices == []


def test_agent_mock_recordings_are_noticed(session):
    (session.folder.recordings / "srv").mkdir(parents=True)
    (session.folder.recordings / "srv" / "a.json").write_text("{}")
    (session.folder.recordings / "srv" / "b.json").write_text("{}")
    controller, _ = finished(session, run_report())
    assert controller.document.notices == [
        f"2 agent-mock recording(s) under {display_path(session.folder.recordings)} — copy them to "
        f"evals/mocks/.replay/<server>/ to replay them with no model call"
    ]


def test_sessionstart_notices(tmp_path, monkeypatch):
    installed = []
    monkeypatch.setattr(controller_module, "install_sigterm", lambda: installed.append(True))
    session = FakeSession(tmp_path, EvalOptions(max_cost_usd=0), FakeConfig(publish=True))
    session.ledger = object()
    controller = Controller(session)
    controller.pytest_sessionstart(None)
    assert installed == [True]
    assert controller.collected.notices == [
        "--max-cost-usd 0: no run can start",
        "--publish-report: reports are not published; the HTML report is local",
    ]
    session.active = False
    idle = Controller(session)
    idle.pytest_sessionstart(None)
    assert (installed, idle.collected.notices) == ([True], [])


# ---- exit statuses -------------------------------------------------------------------------------------------


def exit_of(session, *reports, interrupt: BaseException | None = None) -> tuple[int, Controller]:
    controller = Controller(session)
    feed(controller, *reports)
    if interrupt is not None:
        controller.pytest_keyboard_interrupt(SimpleNamespace(value=interrupt))
    pytest_session = finish(controller)
    assert pytest_session.exitstatus == controller.exit_status
    return pytest_session.exitstatus, controller


def test_all_cases_passing_exit_0(session):
    status, controller = exit_of(session, run_report("evals/a"), run_report("evals/b", run("with", 1, 1.0)))
    assert status == 0
    assert controller.document.partial_reason is None


def test_a_case_below_the_threshold_exits_1(session):
    status, controller = exit_of(session, run_report("evals/a"), run_report("evals/b", run("with", 1, 0.5)))
    assert status == 1
    assert controller.document.aggregates.cases_passed == 1


def test_the_threshold_option_decides(tmp_path):
    status, _ = exit_of(FakeSession(tmp_path, EvalOptions(threshold=0.5)), run_report("evals/b", run(score=0.5)))
    assert status == 0


def test_a_load_error_exits_1(session):
    status, controller = exit_of(session, run_report("evals/a"), load_error_report("evals/broken"))
    assert status == 1
    assert controller.document.partial is False


def test_no_cases_exits_1(session):
    status, controller = exit_of(session)
    assert status == 1
    assert controller.document.cases == [] and controller.results_path is None


def test_a_start_error_exits_1_even_when_the_case_passes(session):
    status, controller = exit_of(
        session,
        run_report("evals/a", run("with", 1, 1.0)),
        run_report("evals/a", run("with", 2, None, error="no sandbox", error_kind="start")),
    )
    assert status == 1
    assert controller.document.cases[0].aggregates.score == 1.0
    assert controller.document.partial is False


def test_a_failure_outside_the_evals_exits_1(session):
    failed_test = SimpleNamespace(when="call", failed=True, keywords={"test_x": 1})
    status, controller = exit_of(session, run_report(), failed_test)
    assert (status, controller.non_eval_failures) == (1, 1)


def test_a_failed_collection_outside_the_evals_exits_1(session):
    status, controller = exit_of(session, run_report(), SimpleNamespace(when="collect", failed=True, keywords={}))
    assert (status, controller.non_eval_failures) == (1, 1)


def test_a_failed_eval_item_without_a_run_is_not_a_foreign_failure(session):
    setup_error = SimpleNamespace(when="setup", failed=True, keywords={"plugin_eval": 1})
    status, controller = exit_of(session, run_report(), setup_error)
    assert (status, controller.non_eval_failures) == (0, 0)


def test_an_api_error_makes_the_session_partial_exit_2(session):
    status, controller = exit_of(
        session,
        run_report("evals/a", run("with", 1, 1.0)),
        run_report("evals/a", run("with", 2, None, error="529", error_kind="api")),
        load_error_report("evals/broken"),
    )
    assert status == 2
    assert (controller.document.partial, controller.document.partial_reason) == (True, "api_error")


def test_the_cost_ceiling_makes_the_session_partial_exit_2(tmp_path):
    status, controller = exit_of(
        FakeSession(tmp_path, EvalOptions(max_cost_usd=1.0)), run_report(), skip_report("a", "with", 2)
    )
    assert status == 2
    assert controller.document.partial_reason == "cost_ceiling"


def test_sigint_exits_130(session):
    status, controller = exit_of(session, run_report(), interrupt=KeyboardInterrupt())
    assert status == 130
    assert (controller.interrupted, controller.document.partial_reason) == ("SIGINT", "interrupted")


def test_sigterm_exits_143(session):
    status, controller = exit_of(session, run_report(), interrupt=Terminated("terminated (SIGTERM)"))
    assert status == 143
    assert (controller.interrupted, controller.document.partial_reason) == ("SIGTERM", "interrupted")


def test_pytests_own_stop_is_not_an_interruption(session):
    class Interrupted(KeyboardInterrupt):
        pass

    status, controller = exit_of(session, run_report(), interrupt=Interrupted())
    assert (status, controller.interrupted, controller.document.partial) == (0, None, False)


def test_an_inactive_session_with_nothing_collected_writes_nothing(session):
    session.active = False
    controller = Controller(session)
    pytest_session = finish(controller)
    assert (controller.document, controller.exit_status, pytest_session.exitstatus) == (None, None, None)


# ---- rejected credentials -------------------------------------------------------------------------------------


def test_rejected_credentials_on_the_first_run_stop_the_session(session):
    controller = Controller(session)
    feed(controller, run_report(result=run(score=None, error="Not logged in", error_kind="auth")))
    assert session.pytest_session.shouldstop == AUTH_STOP
    assert controller.collected.notices == [f"⚠ {AUTH_STOP}"]
    assert finish(controller).exitstatus == 2
    assert controller.document.partial_reason == "auth_failed"


def test_with_xdist_the_stop_goes_to_its_dsession(tmp_path):
    dsession = SimpleNamespace(shouldstop=False)
    session = FakeSession(tmp_path, config=FakeConfig(plugins={"dsession": dsession}))
    feed(Controller(session), run_report(result=run(score=None, error_kind="auth")))
    assert (dsession.shouldstop, session.pytest_session.shouldstop) == (AUTH_STOP, False)


def test_rejected_credentials_after_a_run_do_not_stop_the_session(session):
    controller = Controller(session)
    feed(controller, run_report(), run_report(result=run("with", 2, None, error_kind="auth")))
    assert session.pytest_session.shouldstop is False
    assert controller.collected.notices == []


# ---- the files it writes --------------------------------------------------------------------------------------


def test_the_results_file_is_written_and_reads_back(session, html_reports):
    controller, _ = finished(session, run_report("evals/a", run(cost_usd=0.1)), load_error_report("evals/broken"))
    path = session.folder.results_file
    assert controller.results_path == path
    document = read_results(path)
    assert document.to_json() == controller.document.to_json()
    assert path.read_text(encoding="utf-8") == document_text(controller.document.to_json())
    assert [c.dir for c in document.cases] == ["evals/a"]
    assert [e.dir for e in document.load_errors] == ["evals/broken"]
    assert html_reports == [(controller.document, session.folder.report_file)]
    assert controller.report_path == session.folder.report_file


def test_report_option_writes_the_page_where_asked(tmp_path, html_reports):
    session = FakeSession(tmp_path, EvalOptions(report="page.html"))
    controller, _ = finished(session, run_report())
    assert html_reports == [(controller.document, Path("page.html").absolute())]
    assert controller.report_path == Path("page.html").absolute()


def test_without_a_results_folder_no_file_is_written(session, html_reports):
    session.folder = None
    session.results_folder = lambda root: None
    controller, _ = finished(session, run_report())
    assert (controller.results_path, controller.report_path, html_reports) == (None, None, [])


def test_json_dash_prints_the_document(tmp_path, capsys):
    controller, _ = finished(FakeSession(tmp_path, EvalOptions(json_path="-")), run_report())
    out = capsys.readouterr().out
    assert out == document_text(controller.document.to_json())
    assert json.loads(out)["cases"][0]["dir"] == "evals/a"


def test_json_path_writes_the_document_there(tmp_path, capsys):
    target = tmp_path / "copy" / "out.json"
    controller, _ = finished(FakeSession(tmp_path, EvalOptions(json_path=str(target))), run_report())
    assert json.loads(target.read_text()) == controller.document.to_json()
    assert capsys.readouterr().out == ""


def test_the_results_path_is_remembered_for_lf(tmp_path):
    cache = FakeCache()
    session = FakeSession(tmp_path, config=FakeConfig(cache=cache))
    finished(session, run_report())
    assert cache.values == {CACHE_KEY: str(session.folder.results_file)}


# ---- --lf ----------------------------------------------------------------------------------------------------


def test_lf_completes_the_session_with_the_previous_runs_of_unchanged_cases(tmp_path):
    root = tmp_path / "plugin"
    evals = root / "evals"
    previous = previous_document(tmp_path, root)
    cache = FakeCache({CACHE_KEY: str(previous)})
    session = FakeSession(tmp_path, config=FakeConfig(lf=True, cache=cache))
    session.roots = {evals / "a": evals, evals / "b": evals, evals / "gone": evals, evals / "changed": evals}
    session.loadable = {
        "a": header("evals/a"),
        "b": header("evals/b"),
        "changed": header("evals/changed", prompt="A new prompt."),
    }
    controller, pytest_session = finished(session, run_report("evals/a", run("with", 1, 1.0)))
    document = controller.document
    assert [c.dir for c in document.cases] == ["evals/a", "evals/b"]
    a, b = document.cases
    assert [(r.index, r.score, r.reused) for r in a.runs("with")] == [(1, 1.0, False), (2, 1.0, True)]
    assert [(r.index, r.reused) for r in b.runs("with")] == [(1, True), (2, True)]
    assert a.aggregates.score == 1.0 and b.aggregates.score == 0.5
    assert f"--lf: 3 run(s) of unchanged cases reused from {display_path(previous)}" in document.notices
    assert pytest_session.exitstatus == 1  # b still fails
    assert cache.values[CACHE_KEY] == str(session.folder.results_file)


def test_lf_without_a_previous_document_keeps_this_sessions_runs(tmp_path):
    session = FakeSession(tmp_path, config=FakeConfig(lf=True, cache=FakeCache()))
    controller, _ = finished(session, run_report("evals/a"))
    assert [(c.dir, len(c.runs())) for c in controller.document.cases] == [("evals/a", 1)]
    assert controller.document.notices == []


def previous_document(tmp_path: Path, root: Path) -> Path:
    """A previous session's document: a (run 1 failed, run 2 passed), b (two runs), gone, changed."""

    def case(case_dir, runs, prompt="Say hi."):
        out = header(case_dir, prompt=prompt)
        out.arms = {"with": runs}
        return out

    cases = [
        scoring.aggregate(c)
        for c in (
            case("evals/a", [run("with", 1, 0.0), run("with", 2, 1.0)]),
            case("evals/b", [run("with", 1, 0.0), run("with", 2, 1.0)]),
            case("evals/changed", [run("with", 1, 1.0)]),
            case("evals/gone", [run("with", 1, 1.0)]),
        )
    ]
    document = SuiteResult(
        claude_version="2.1.0",
        started_at="2026-01-01T00:00:00.000Z",
        duration_seconds=1,
        suite=SuiteInfo(root=str(root), ablation="none"),
        cases=cases,
        aggregates=scoring.suite_aggregates(cases, 1.0),
    )
    path = tmp_path / "previous" / "aggregate-result.json"
    write_json(path, document.to_json())
    return path
