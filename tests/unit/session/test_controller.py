"""Unit tests for the controller's half of an eval session (pytest_plugin_eval.session.controller): what it gathers
from the reports (per eval dir), each case's verdict reported as a test of its own, the results documents it
builds (one per eval dir), the exit status it sets, and the files it writes.

No pytester and no binary: the Controller is built around a minimal fake of the EvalSession (only what the
controller reads) and of pytest's config (a `hook` that records the verdicts, a `stash` for JUnit XML), and fed
report-like objects carrying what `wire` and `verdicts` put on real reports."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from _pytest.junitxml import xml_key
from helpers.fakes import FakeHook, FakeLogXML

from pytest_plugin_eval.core.paths import display_path
from pytest_plugin_eval.core.run_id import ARM_LABELS
from pytest_plugin_eval.engine import documents as documents_module
from pytest_plugin_eval.engine import wire
from pytest_plugin_eval.engine.collected import CaseItems, Collected, SuiteRuns, case_file_of, merge_suite
from pytest_plugin_eval.engine.interrupts import Terminated
from pytest_plugin_eval.engine.options import EvalOptions
from pytest_plugin_eval.engine.outputs import Written
from pytest_plugin_eval.engine.session_view import SessionView
from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import CaseLoadError
from pytest_plugin_eval.report import html as report_html
from pytest_plugin_eval.report import terminal as report_terminal
from pytest_plugin_eval.results import scoring
from pytest_plugin_eval.results.model import (
    SCHEMA_VERSION,
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
from pytest_plugin_eval.session import verdicts
from pytest_plugin_eval.session.controller import Controller
from pytest_plugin_eval.session.verdicts import VerdictRepr

STARTED_AT = "2026-03-04T05:06:07.890Z"
EVALS = "/suite/evals"
AUTH_STOP = (
    "the first run's credentials were rejected — every remaining run would fail the same way, so the "
    "session stops here. Check what signs Claude Code in (the session's `access` line names it): a login — run "
    "`claude` once to refresh it, or `claude /login`; a setup token — a fresh one from `claude setup-token`; an API "
    "key or a cloud provider — its variables. Or pass --scripted to check the suite offline"
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
        self.rootpath = Path("/nonexistent-rootdir")
        self.plugins = dict(plugins or {})
        self.pluginmanager = SimpleNamespace(getplugin=self.plugins.get, get_plugin=self.plugins.get)
        self.cache = cache
        self.hook = FakeHook()
        self.stash = pytest.Stash()

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
        self.access: dict | None = None
        self.stored: Any = None
        self.ledger: Any = None
        self.rerun_status: str | None = None
        self.shard_share: tuple[int, int, int, int] | None = None
        self.pytest_session: Any = SimpleNamespace(shouldstop=False, testscollected=0)
        self.pool = IdlePool()
        self.tmp_path = tmp_path
        self.folder = ResultsFolder(tmp_path / "results" / "now")  # the eval dir /suite/evals's
        self.folders: dict[Path, ResultsFolder] = {Path(EVALS): self.folder}
        self.labels: dict[Path, str] = {}
        # --lf: what the session loads for the cases of the previous document.
        self.loadable: dict[str, CaseResult] = {}
        self.roots: dict[Path, Path] = {}

    @property
    def claude(self) -> Path:
        raise ClaudeNotFound("no Claude Code binary found")

    def results_folder(self, eval_root, model=None):
        folder = self.session_folder(eval_root)
        return folder if folder is None or model is None else ResultsFolder(folder.path / model)

    def session_folder(self, eval_root):
        if eval_root is None:
            return None
        if eval_root not in self.folders:  # another eval dir: a folder of its own
            self.folders[eval_root] = ResultsFolder(self.tmp_path / "results" / self.suite_label(eval_root))
        return self.folders[eval_root]

    def suite_label(self, eval_root: Path, model: str | None = None) -> str:
        label = self.labels.get(eval_root, eval_root.parent.name)
        return label if model is None else f"{label}[{model}]"

    def ablation_for(self, has_plugin: bool) -> str:
        return self.options.ablation or ("with-without" if has_plugin else "none")

    def eval_root(self, path: Path):
        return self.roots.get(path)

    def load(self, folder: Path, root: Path) -> Any:
        if folder.name not in self.loadable:
            raise CaseLoadError(folder, [])
        return folder.name  # what case_result is asked about

    def load_triggers(self, path: Path, root: Path) -> Any:
        return []  # no trigger sets in these suites

    def grader_types(self) -> dict:
        return grader_types()

    def case_result(self, case: Any, model: str | None = None) -> CaseResult:
        return self.loadable[case]

    def suite_info(self, case: Any, model: str | None = None) -> SuiteInfo:
        raise AssertionError("only a worker's crash asks for a case's suite, and no test here loads one")

    def stop_runs(self) -> list:
        return self.pool.stop()

    @property
    def workspace_base(self) -> Path | None:
        return None  # no workspace to clean up after a dead worker


class IdlePool:
    """No run in flight, none to stop."""

    def in_flight(self) -> int:
        return 0

    def stop(self) -> list:
        return []


@pytest.fixture(autouse=True)
def html_reports(monkeypatch) -> list[tuple]:
    """The HTML page is the report package's business: here only where the controller asks for it is checked."""
    written: list[tuple] = []
    monkeypatch.setattr(report_html, "write_report", lambda document, path, *more: written.append((document, path)))
    return written


@pytest.fixture
def session(tmp_path: Path) -> FakeSession:
    fake = FakeSession(tmp_path)
    _: SessionView = fake  # mypy holds the fake to what the Controller reads of a session
    return fake


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
    return SuiteInfo(
        root=root, ablation=ablation, plugins=[PluginInfo(p, f"/suite/{p}", version="1.0.0") for p in plugins]
    )


def run(arm: str = "with", index: int = 1, score: float | None = 1.0, **kw) -> RunResult:
    notes = kw.pop("notes", [])
    result = RunResult(arm, index, score=score, passed=score == 1.0, **kw)
    result.notes = list(notes)
    return result


def failing(explanation: str = "pattern /hi/ not found") -> list[GraderResult]:
    return [GraderResult("says-hi", False, 1, explanation)]


def case_file_for(case_dir: str = "evals/a", eval_root: str = EVALS) -> str:
    """The node id's file of a case: rootdir is `/`'s child's parent, so /suite/evals/a is suite/evals/a/prompt.md."""
    return f"{Path(eval_root).parent.name}/{case_dir}/prompt.md"


def nodeid_of(case_file: str, arm: str = "with", index: int = 1, name: str | None = None) -> str:
    """A run item's node id: `<case file>::<case name>[with-plugin-2]`."""
    return f"{case_file}::{name or Path(case_file).parent.name}[{ARM_LABELS[arm]}-{index}]"


def item_report(when: str, nodeid: str, label: str = "p", failed: bool = False, **attrs) -> SimpleNamespace:
    """A report of a run item, as `hooks.pytest_runtest_makereport` leaves it: JUnit names on every phase."""
    name = nodeid.split("::", 1)[1].split("[", 1)[0]
    junit = [f"{label}.{name}", nodeid.rsplit("[", 1)[1].rstrip("]")]
    return SimpleNamespace(
        when=when,
        nodeid=nodeid,
        failed=failed,
        keywords={"plugin_eval": 1, name: 1},
        **{verdicts.JUNIT_ATTR: junit},
        **attrs,
    )


def run_report(
    case_dir: str = "evals/a",
    result: RunResult | None = None,
    *,
    notices=(),
    suite=None,
    eval_root: str = EVALS,
    case: CaseResult | None = None,
    label: str = "p",
    case_file: str | None = None,
    model: str | None = None,
) -> SimpleNamespace:
    """The call report of a run item."""
    result = result or run()
    case = case or header(case_dir)
    report = wire.RunReport(
        case=case,
        run=result,
        suite=suite or suite_of("/suite", "p"),
        eval_root=eval_root,
        label=label,
        notices=list(notices),
        model=model,
    )
    data = json.loads(json.dumps(report.to_json()))  # as it crosses xdist's channel
    nodeid = nodeid_of(case_file or case_file_for(case_dir, eval_root), result.arm, result.index, case.name)
    # A run item fails only when the harness could not run it.
    failed = result.error_kind in ("start", "api", "auth")
    return item_report("call", nodeid, label, failed, **{wire.RUN_ATTR: data})


def run_item(case_dir: str = "evals/a", result: RunResult | None = None, **kw) -> list[SimpleNamespace]:
    """The three reports of one run item: setup, call (carrying the run) and teardown."""
    call = run_report(case_dir, result, **kw)
    label = kw.get("label", "p")
    return [item_report("setup", call.nodeid, label), call, item_report("teardown", call.nodeid, label)]


def skip_report(
    case: str, arm: str, index: int, reason: str = "cost_ceiling", eval_root: str = EVALS
) -> SimpleNamespace:
    skipped = SkippedRun(case, f"evals/{case}", arm, index, reason)
    nodeid = nodeid_of(case_file_for(f"evals/{case}", eval_root), arm, index)
    return item_report("call", nodeid, **{wire.SKIP_ATTR: wire.SkipReport(skipped, eval_root).to_json()})


def load_error_report(case_dir: str, message: str = "prompt.md: is empty", eval_root: str = EVALS):
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


def make(session) -> Controller:
    """A Controller whose verdict reports come back to it, as they do through pytest's hooks."""
    controller = Controller(session)
    session.config.hook.forward = controller
    return controller


def finish(controller: Controller) -> SimpleNamespace:
    pytest_session = SimpleNamespace(exitstatus=None)
    controller.pytest_sessionfinish(pytest_session)
    return pytest_session


def feed(controller: Controller, *reports) -> None:
    for report in reports:
        if isinstance(report, list):
            feed(controller, *report)
        elif getattr(report, wire.LOAD_ERROR_ATTR, None) is not None or report.when == "collect":
            controller.pytest_collectreport(report)
        else:
            controller.pytest_runtest_logreport(report)


def finished(session, *reports) -> tuple[Controller, SimpleNamespace]:
    controller = make(session)
    feed(controller, *reports)
    return controller, finish(controller)


def only(controller: Controller) -> SuiteResult:
    """The one document of a session over one eval dir."""
    (document,) = controller.outputs.documents
    return document


def collection(session, *nodeids: str) -> SimpleNamespace:
    """The pytest session at `pytest_collection_finish`: its items."""
    return SimpleNamespace(items=[SimpleNamespace(nodeid=n) for n in nodeids], testscollected=len(nodeids))


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
    document = only(controller).to_json()
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
    monkeypatch.setattr(documents_module, "claude_version", lambda path: "2.1.327")
    session.__class__ = type("WithClaude", (FakeSession,), {"claude": Path("/bin/claude")})
    controller, _ = finished(
        session, run_report("evals/a", run(cost_usd=0.25)), run_report("evals/a", run("with", 2, 0.5, cost_usd=0.5))
    )
    document = only(controller)
    assert (document.claude_version, document.started_at) == ("2.1.327", STARTED_AT)
    assert document.cost_usd == 0.75
    assert document.duration_seconds >= 0
    assert [c.aggregates.score for c in document.cases] == [0.75]


def test_claude_version_is_unknown_without_a_binary(session):
    controller, _ = finished(session, run_report())
    assert only(controller).claude_version == "unknown"


def test_a_regraded_session_names_the_stored_sessions_claude_and_folder(session):
    made_by = PluginInfo("p", "/suite/p", version="0.9.0", git_commit="a" * 40, git_dirty=True)
    session.stored = SimpleNamespace(
        document=SimpleNamespace(
            claude_version="2.0.9",
            suite=SimpleNamespace(plugins=[made_by], against=None, ablated=[], fail_on_worse=False),
        ),
        folder=SimpleNamespace(path=Path("/old/results/x")),
    )
    controller, _ = finished(session, run_report())
    assert only(controller).claude_version == "2.0.9"
    assert only(controller).suite.regraded_from == "/old/results/x"
    assert only(controller).suite.plugins == [made_by]  # the plugin the stored runs were made with


def test_a_regraded_session_keeps_the_stored_fail_on_worse(session):
    session.stored = SimpleNamespace(
        document=SimpleNamespace(
            claude_version="2.0.9",
            suite=SimpleNamespace(plugins=[], against="../old", ablated=[], fail_on_worse=True),
        ),
        folder=SimpleNamespace(path=Path("/old/results/x")),
    )
    controller, _ = finished(session, run_report())
    assert only(controller).suite.fail_on_worse is True
    assert only(controller).suite.against == "../old"


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
    assert only(controller).suite.to_json() == {
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
    suite = only(controller).suite
    assert (suite.case_filter, suite.concurrency, suite.tag_filters, suite.model_override) == (
        ["a*", "b?"],
        4,
        None,
        None,
    )


def test_without_any_run_the_suite_is_the_first_eval_dirs_plugin(session):
    session.eval_roots = [Path("/work/plugin/evals"), Path("/work/other/evals")]
    controller, _ = finished(session)
    suite = only(controller).suite
    # the plugin is known from the folder, although no case of it loaded: compare and history name it
    assert (suite.root, suite.ablation) == ("/work/plugin", "with-without")
    assert [(p.name, p.path) for p in suite.plugins] == [("plugin", "/work/plugin")]
    assert list(controller.gather.collected.suites) == [("/work/plugin/evals", None)]
    (written,) = controller.outputs.written
    assert written.label == "plugin"
    assert written.results_path is None  # no case: no results folder, as the reference tool does


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
    errors = only(controller).to_json()["loadErrors"]
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
    assert [(r["dir"], r["arm"], r["index"], r["reason"]) for r in only(controller).to_json()["skippedRuns"]] == [
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
    assert only(controller).notices == ["⚠ case a: Bash is gated", "n2", "model m has no list price", "n3"]
    # A run's notes go to the session, not into the document's run.
    assert "notes" not in only(controller).to_json()["cases"][0]["arms"]["with"][0]


def test_a_reports_case_header_is_kept_from_the_first_run(session):
    controller, _ = finished(
        session,
        run_report(case=header("evals/a", name="first")),
        run_report(case=header("evals/a", name="second"), result=run("with", 2)),
    )
    assert [(c.name, len(c.runs())) for c in only(controller).cases] == [("first", 2)]


def test_the_same_api_error_everywhere_is_a_suite_hint(session):
    error = dict(error="exit 1: API Error: 529", error_kind="api")
    controller, _ = finished(
        session, run_report("evals/a", run(score=None, **error)), run_report("evals/b", run(score=None, **error))
    )
    assert only(controller).notices == [
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
    assert only(controller).notices == [
        "⚠ cost ceiling $1 reached ($0.7500 spent): 2 run(s) not started, in b, c",
        "⚠ cost ceiling $1 crossed by runs in flight: 1 run(s) skipped their paid graders, which are left out of "
        "their scores",
    ]


def test_an_unpriced_judge_model_is_noticed_once_a_grader_was_judged(tmp_path, session):
    session.judge_model = "my-judge"
    judged = GraderResult("polite", True, 1, "judge votes: PASS PASS", judge_votes=[True, True])
    controller, _ = finished(session, run_report(result=run(graders=[judged])))
    assert only(controller).notices == [
        "judge model my-judge is not in the price table: its calls are priced as claude-opus-5-5"
    ]
    priced = FakeSession(tmp_path / "priced")  # the default judge model has a list price
    controller, _ = finished(priced, run_report(result=run(graders=[judged])))
    assert only(controller).notices == []


def test_agent_mock_recordings_are_noticed(session):
    (session.folder.recordings / "srv").mkdir(parents=True)
    (session.folder.recordings / "srv" / "a.json").write_text("{}")
    (session.folder.recordings / "srv" / "b.json").write_text("{}")
    controller, _ = finished(session, run_report())
    assert only(controller).notices == [
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
    assert controller.gather.collected.notices == [
        "--max-cost-usd 0: no run can start",
        "--publish-report: reports are not published; the HTML report is local",
    ]
    session.active = False
    idle = Controller(session)
    idle.pytest_sessionstart(None)
    assert (installed, idle.gather.collected.notices) == ([True], [])


# ---- exit statuses -------------------------------------------------------------------------------------------


def exit_of(session, *reports, interrupt: BaseException | None = None) -> tuple[int, Controller]:
    controller = make(session)
    feed(controller, *reports)
    if interrupt is not None:
        controller.pytest_keyboard_interrupt(SimpleNamespace(value=interrupt))
    pytest_session = finish(controller)
    assert pytest_session.exitstatus == controller.exit_status
    return pytest_session.exitstatus, controller


def test_all_cases_passing_exit_0(session):
    status, controller = exit_of(session, run_report("evals/a"), run_report("evals/b", run("with", 1, 1.0)))
    assert status == 0
    assert only(controller).partial_reason is None


def test_a_case_below_the_threshold_exits_1(session):
    status, controller = exit_of(session, run_report("evals/a"), run_report("evals/b", run("with", 1, 0.5)))
    assert status == 1
    assert only(controller).aggregates.cases_passed == 1


def test_the_threshold_option_decides(tmp_path):
    status, _ = exit_of(FakeSession(tmp_path, EvalOptions(threshold=0.5)), run_report("evals/b", run(score=0.5)))
    assert status == 0


def test_a_load_error_exits_1(session):
    status, controller = exit_of(session, run_report("evals/a"), load_error_report("evals/broken"))
    assert status == 1
    assert only(controller).partial is False


def test_no_cases_exits_1(session):
    status, controller = exit_of(session)
    assert status == 1
    assert only(controller).cases == []
    assert controller.outputs.written == [Written(only(controller), None, None, "suite")]


def test_a_start_error_exits_1_even_when_the_case_passes(session):
    status, controller = exit_of(
        session,
        run_report("evals/a", run("with", 1, 1.0)),
        run_report("evals/a", run("with", 2, None, error="no sandbox", error_kind="start")),
    )
    assert status == 1
    assert only(controller).cases[0].aggregates.score == 1.0
    assert only(controller).partial is False


def test_a_failure_outside_the_evals_exits_1(session):
    failed_test = SimpleNamespace(when="call", failed=True, keywords={"test_x": 1}, nodeid="tests/test_x.py::test_x")
    status, controller = exit_of(session, run_report(), failed_test)
    assert (status, controller.gather.non_eval_failures) == (1, 1)


def test_a_failed_collection_outside_the_evals_exits_1(session):
    status, controller = exit_of(session, run_report(), SimpleNamespace(when="collect", failed=True, keywords={}))
    assert (status, controller.gather.non_eval_failures) == (1, 1)


def test_a_failed_eval_item_without_a_run_is_not_a_foreign_failure(session):
    setup_error = item_report("setup", nodeid_of(case_file_for(), "with", 2), failed=True)
    status, controller = exit_of(session, run_report(), setup_error)
    assert (status, controller.gather.non_eval_failures) == (0, 0)


def test_an_api_error_makes_the_session_partial_exit_2(session):
    status, controller = exit_of(
        session,
        run_report("evals/a", run("with", 1, 1.0)),
        run_report("evals/a", run("with", 2, None, error="529", error_kind="api")),
        load_error_report("evals/broken"),
    )
    assert status == 2
    assert (only(controller).partial, only(controller).partial_reason) == (True, "api_error")


def test_the_cost_ceiling_makes_the_session_partial_exit_2(tmp_path):
    status, controller = exit_of(
        FakeSession(tmp_path, EvalOptions(max_cost_usd=1.0)), run_report(), skip_report("a", "with", 2)
    )
    assert status == 2
    assert only(controller).partial_reason == "cost_ceiling"


def test_sigint_exits_130(session):
    status, controller = exit_of(session, run_report(), interrupt=KeyboardInterrupt())
    assert status == 130
    assert (controller.gather.interrupted, only(controller).partial_reason) == ("SIGINT", "interrupted")


def test_an_interruption_records_the_runs_in_flight_as_their_items_would_have_reported_them(session):
    """The pool's items in flight come back from stop_runs with what they came to; each is recorded through what
    its call report would have carried (collect.PooledItem.ended / carried)."""
    in_flight = run_report("evals/b", run(score=None, error_kind="interrupted", error="interrupted"))

    class InFlight:
        nodeid = in_flight.nodeid

        def ended(self, outcome):
            self.outcome = outcome

        def carried(self):
            return {wire.RUN_ATTR: getattr(in_flight, wire.RUN_ATTR)}

    item, outcome = InFlight(), object()
    session.stop_runs = lambda: [(item, outcome)]
    status, controller = exit_of(session, run_report("evals/a"), interrupt=KeyboardInterrupt())
    assert status == 130 and item.outcome is outcome
    assert [(case.dir, [r.error_kind for r in case.runs()]) for case in only(controller).cases] == [
        ("evals/a", [None]),
        ("evals/b", ["interrupted"]),
    ]


def test_sigterm_exits_143(session):
    status, controller = exit_of(session, run_report(), interrupt=Terminated("terminated (SIGTERM)"))
    assert status == 143
    assert (controller.gather.interrupted, only(controller).partial_reason) == ("SIGTERM", "interrupted")


def test_pytests_own_stop_is_not_an_interruption(session):
    class Interrupted(KeyboardInterrupt):
        pass

    status, controller = exit_of(session, run_report(), interrupt=Interrupted())
    assert (status, controller.gather.interrupted, only(controller).partial) == (0, None, False)


def test_an_inactive_session_with_nothing_collected_writes_nothing(session):
    session.active = False
    controller = make(session)
    pytest_session = finish(controller)
    assert (controller.outputs.written, controller.outputs.documents, controller.exit_status) == ([], [], None)
    assert pytest_session.exitstatus is None
    assert session.config.hook.calls == []


def test_an_inactive_session_that_saw_a_run_still_finishes(session):
    session.active = False
    controller, pytest_session = finished(session, run_report())
    assert (pytest_session.exitstatus, [c.dir for c in only(controller).cases]) == (0, ["evals/a"])


def test_the_exit_status_counts_the_cases_of_every_eval_dir(session):
    status, _ = exit_of(
        session,
        run_report("evals/a", eval_root=EVALS),
        run_report("evals/a", run(score=0.5), eval_root="/other/evals", suite=suite_of("/other")),
    )
    assert status == 1
    status, _ = exit_of(
        FakeSession(session.tmp_path / "2"),
        run_report("evals/a", eval_root=EVALS),
        load_error_report("evals/broken", eval_root="/other/evals"),
    )
    assert status == 1
    status, _ = exit_of(
        FakeSession(session.tmp_path / "3"),
        run_report("evals/a", eval_root=EVALS),
        run_report("evals/a", run(score=None, error="529", error_kind="api"), eval_root="/other/evals"),
    )
    assert status == 2


# ---- rejected credentials -------------------------------------------------------------------------------------


def test_rejected_credentials_on_the_first_run_stop_the_session(session):
    controller = make(session)
    feed(controller, run_report(result=run(score=None, error="Not logged in", error_kind="auth")))
    assert session.pytest_session.shouldstop == AUTH_STOP
    assert controller.gather.collected.notices == [f"⚠ {AUTH_STOP}"]
    assert finish(controller).exitstatus == 2
    assert only(controller).partial_reason == "auth_failed"


def test_with_xdist_the_stop_goes_to_its_dsession(tmp_path):
    dsession = SimpleNamespace(shouldstop=False)
    session = FakeSession(tmp_path, config=FakeConfig(plugins={"dsession": dsession}))
    feed(make(session), run_report(result=run(score=None, error_kind="auth")))
    assert (dsession.shouldstop, session.pytest_session.shouldstop) == (AUTH_STOP, False)


def test_credentials_refused_after_runs_were_answered_are_said_once_with_the_fix_and_the_session_goes_on(session):
    # as the reference tool does: a later refusal is a run error, not a stop
    session.access = {"runs": "login"}
    controller = make(session)
    refused = run("with", 2, None, error="exit 1: OAuth token has expired", error_kind="auth")
    feed(
        controller, run_report(), run_report(result=refused), run_report(result=run("with", 3, None, error_kind="auth"))
    )
    [said] = controller.gather.collected.notices  # once, though a later run was refused too
    assert session.pytest_session.shouldstop is False
    assert "rejected after 1 run(s) had been answered" in said and "run `claude` once" in said
    assert finish(controller).exitstatus == 2
    assert only(controller).partial


def test_a_setup_token_refused_mid_session_names_claude_setup_token(session):
    session.access = {"runs": "setup-token"}
    controller = make(session)
    feed(controller, run_report(), run_report(result=run("with", 2, None, error_kind="auth")))
    assert "`claude setup-token`" in controller.gather.collected.notices[0]


def test_a_run_of_another_eval_dir_is_refused_on_the_same_credentials(session):
    controller = make(session)
    feed(
        controller,
        run_report(),
        run_report(result=run(score=None, error_kind="auth"), eval_root="/other/evals", suite=suite_of("/other")),
    )
    assert [n for n in controller.gather.collected.notices if "credentials were rejected" in n]


def test_a_model_of_a_matrix_refused_while_another_model_answers_does_not_stop_the_session(session):
    controller = make(session)
    feed(
        controller,
        run_report(model="claude-sonnet-4-5"),
        run_report(result=run(score=None, error="exit 1: 403", error_kind="auth"), model="claude-opus-4-1"),
    )
    assert session.pytest_session.shouldstop is False  # it may be that model alone the account cannot use
    assert controller.gather.collected.notices == []


# ---- the files it writes --------------------------------------------------------------------------------------


def test_the_results_file_is_written_and_reads_back(session, html_reports):
    controller, _ = finished(session, run_report("evals/a", run(cost_usd=0.1)), load_error_report("evals/broken"))
    path = session.folder.results_file
    document = only(controller)
    assert controller.outputs.written == [Written(document, path, session.folder.report_file, "suite")]
    read = read_results(path)
    assert read.to_json() == document.to_json()
    assert path.read_text(encoding="utf-8") == document_text(document.to_json())
    assert [c.dir for c in read.cases] == ["evals/a"]
    assert [e.dir for e in read.load_errors] == ["evals/broken"]
    assert html_reports == [(document, session.folder.report_file)]


def test_report_option_writes_the_page_where_asked(tmp_path, html_reports):
    session = FakeSession(tmp_path, EvalOptions(report="page.html"))
    controller, _ = finished(session, run_report())
    assert html_reports == [(only(controller), Path("page.html").absolute())]
    assert controller.outputs.written[0].report_path == Path("page.html").absolute()


def test_without_a_results_folder_no_file_is_written(session, html_reports):
    session.folder = None
    session.results_folder = lambda root, model=None: None
    controller, _ = finished(session, run_report())
    (written,) = controller.outputs.written
    assert (written.results_path, written.report_path, html_reports) == (None, None, [])


def test_json_dash_prints_the_document(tmp_path, capsys):
    controller, _ = finished(FakeSession(tmp_path, EvalOptions(json_path="-")), run_report())
    out = capsys.readouterr().out
    assert out == document_text(only(controller).to_json())
    assert json.loads(out)["cases"][0]["dir"] == "evals/a"


def test_json_path_writes_the_document_there(tmp_path, capsys):
    target = tmp_path / "copy" / "out.json"
    controller, _ = finished(FakeSession(tmp_path, EvalOptions(json_path=str(target))), run_report())
    assert json.loads(target.read_text()) == only(controller).to_json()
    assert capsys.readouterr().out == ""


def test_the_results_path_is_remembered_for_lf(tmp_path):
    cache = FakeCache()
    session = FakeSession(tmp_path, config=FakeConfig(cache=cache))
    finished(session, run_report())
    assert cache.values == {CACHE_KEY: [str(session.folder.results_file)]}


def test_nothing_is_remembered_without_a_results_file(tmp_path):
    cache = FakeCache({CACHE_KEY: ["/old/aggregate-result.json"]})
    session = FakeSession(tmp_path, config=FakeConfig(cache=cache))
    session.results_folder = lambda root, model=None: None
    finished(session, run_report())
    assert cache.values == {CACHE_KEY: ["/old/aggregate-result.json"]}


def test_terminal_summary_of_one_eval_dir(session, monkeypatch):
    calls = []
    monkeypatch.setattr(report_terminal, "write_summary", lambda *args, **kw: calls.append((args, kw)))
    controller = make(session)
    terminal = object()
    controller.pytest_terminal_summary(terminal)  # nothing written yet: nothing to say
    assert calls == []
    feed(controller, run_report())
    finish(controller)
    controller.pytest_terminal_summary(terminal)
    w = controller.outputs.written[0]
    assert calls == [
        ((terminal, w.document, w.results_path, w.report_path, None), {"expanded": False, "said_above": []})
    ]


def test_pytest_html_summary_gets_every_suite(session, monkeypatch):
    monkeypatch.setattr(report_html, "summary_html", lambda document: f"<p>{document.suite.root}</p>")
    controller = make(session)
    prefix: list[str] = []
    controller.pytest_html_results_summary(prefix, [], [], None)
    assert prefix == []
    feed(controller, run_report(), run_report(eval_root="/other/evals", suite=suite_of("/other")))
    finish(controller)
    controller.pytest_html_results_summary(prefix, [], [], None)
    assert prefix == ["<p>/suite</p>", "<p>/other</p>"]


# ---- --lf ----------------------------------------------------------------------------------------------------


def lf_session(tmp_path: Path, cached) -> tuple[FakeSession, Path, FakeCache]:
    root = tmp_path / "plugin"
    evals = root / "evals"
    cache = FakeCache({CACHE_KEY: cached})
    session = FakeSession(tmp_path, config=FakeConfig(lf=True, cache=cache))
    session.folders[evals] = session.folder
    session.roots = {evals / "a": evals, evals / "b": evals, evals / "gone": evals, evals / "changed": evals}
    session.loadable = {
        "a": header("evals/a"),
        "b": header("evals/b"),
        "changed": header("evals/changed", prompt="A new prompt."),
    }
    return session, root, cache


def lf_run(root: Path, result: RunResult, case_dir: str = "evals/a", **kw) -> SimpleNamespace:
    return run_report(case_dir, result, eval_root=str(root / "evals"), suite=suite_of(str(root), "p"), **kw)


@pytest.mark.parametrize("legacy", [False, True], ids=["list", "one-path"])
def test_lf_completes_the_session_with_the_previous_runs_of_unchanged_cases(tmp_path, legacy):
    previous = previous_document(tmp_path, tmp_path / "plugin")
    session, root, cache = lf_session(tmp_path, str(previous) if legacy else [str(previous)])
    controller, pytest_session = finished(session, lf_run(root, run("with", 1, 1.0)))
    document = only(controller)
    assert [c.dir for c in document.cases] == ["evals/a", "evals/b"]
    a, b = document.cases
    assert [(r.index, r.score, r.reused) for r in a.runs("with")] == [(1, 1.0, False), (2, 1.0, True)]
    assert [(r.index, r.reused) for r in b.runs("with")] == [(1, True), (2, True)]
    assert a.aggregates.score == 1.0 and b.aggregates.score == 0.5
    # the reused runs' cost is the session's too, and the notice says so: the total is not all spent today
    reused = f"--lf: 3 run(s) of unchanged cases reused from {display_path(previous)}"
    assert f"{reused} (their $0.03, paid then, is counted in this session's cost)" in document.notices
    assert document.cost_usd == pytest.approx(0.03)
    assert pytest_session.exitstatus == 1  # b still fails
    assert cache.values[CACHE_KEY] == [str(previous), str(session.folder.results_file)]  # this one last


def test_lf_without_a_previous_document_keeps_this_sessions_runs(tmp_path):
    session = FakeSession(tmp_path, config=FakeConfig(lf=True, cache=FakeCache()))
    controller, _ = finished(session, run_report("evals/a"))
    assert [(c.dir, len(c.runs())) for c in only(controller).cases] == [("evals/a", 1)]
    assert only(controller).notices == []


def test_lf_merges_a_previous_document_into_its_own_suite_only(tmp_path):
    previous = previous_document(tmp_path, tmp_path / "plugin")
    session, root, _ = lf_session(tmp_path, [str(tmp_path / "missing.json"), str(previous)])
    other = tmp_path / "other"
    controller, _ = finished(
        session,
        lf_run(root, run("with", 1, 1.0)),
        run_report("evals/a", run("with", 1, 1.0), eval_root=str(other / "evals"), suite=suite_of(str(other))),
    )
    mine, theirs = controller.outputs.documents
    assert [c.dir for c in mine.cases] == ["evals/a", "evals/b"]
    assert [(c.dir, len(c.runs())) for c in theirs.cases] == [("evals/a", 1)]


def previous_document(tmp_path: Path, root: Path) -> Path:
    """A previous session's document: a (run 1 failed, run 2 passed), b (two runs), gone, changed."""

    def case(case_dir, runs, prompt="Say hi."):
        out = header(case_dir, prompt=prompt)
        out.arms = {"with": runs}
        return out

    cases = [
        scoring.aggregate(c)
        for c in (
            case("evals/a", [run("with", 1, 0.0, cost_usd=0.01), run("with", 2, 1.0, cost_usd=0.01)]),
            case("evals/b", [run("with", 1, 0.0, cost_usd=0.01), run("with", 2, 1.0, cost_usd=0.01)]),
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


# ---- several eval dirs ----------------------------------------------------------------------------------------

OTHER = "/other/evals"


def two_suites(tmp_path: Path, options: EvalOptions | None = None, config: FakeConfig | None = None):
    """A session over /suite/evals (label "suite") and /other/evals (labelled "commit-craft")."""
    session = FakeSession(tmp_path, options, config)
    session.eval_roots = [Path(EVALS), Path(OTHER)]
    session.labels = {Path(OTHER): "commit-craft"}
    return session


def other(case_dir: str = "evals/a", result: RunResult | None = None, **kw) -> SimpleNamespace:
    return run_report(case_dir, result, eval_root=OTHER, suite=suite_of("/other", "q"), label="commit-craft", **kw)


def test_collected_keeps_each_eval_dirs_runs_apart():
    collected = Collected()
    assert collected.of("/x/evals") is collected.of("/x/evals")
    assert collected.suites == {("/x/evals", None): SuiteRuns("/x/evals")}
    collected.of("/x/evals").cases["evals/a"] = header()
    collected.of("/x/evals").cases["evals/a"].arms = {"with": [run()]}
    collected.of("/y/evals").cases["evals/a"] = header()
    collected.of("/y/evals").cases["evals/a"].arms = {"with": [run("with", 2)], "without": [run("without", 1)]}
    assert [(r.arm, r.index) for r in collected.runs] == [("with", 1), ("with", 2), ("without", 1)]
    collected.notice("n")
    collected.notice("n")
    assert collected.notices == ["n"]


def test_a_notice_about_an_eval_dir_is_in_its_documents_alone():
    collected = Collected(models=("a", "b"))
    x_a, x_b = collected.of_every_model("/x/evals")
    [y_a, y_b] = collected.of_every_model("/y/evals")
    collected.notice("of x", x_a)
    collected.notice("of the session")
    collected.notice("of y", y_b)
    collected.notice("of x", x_b)
    collected.notice("of the session", x_a)  # said of a suite too: still once
    # a matrix's models share their eval dir's notices (they speak of the whole matrix); other eval dirs do not
    assert collected.notices_of(x_a) == collected.notices_of(x_b) == ["of x", "of the session"]
    assert collected.notices_of(y_a) == ["of the session", "of y"]
    assert collected.notices == ["of x", "of the session", "of y"]


def test_each_eval_dir_gets_its_own_document(tmp_path, html_reports):
    session = two_suites(tmp_path, EvalOptions(max_cost_usd=5.0))
    controller, pytest_session = finished(
        session,
        run_report("evals/b", run()),
        other("evals/a", run(score=0.5)),
        run_report("evals/a", run()),
        load_error_report("evals/broken", eval_root=OTHER),
        skip_report("a", "with", 2),
    )
    assert list(controller.gather.collected.suites) == [(EVALS, None), (OTHER, None)]
    mine, theirs = controller.gather.collected.suites.values()
    assert (list(mine.cases), list(mine.load_errors), [r.index for r in mine.skipped]) == (
        ["evals/b", "evals/a"],
        [],
        [2],
    )
    assert (list(theirs.cases), list(theirs.load_errors), theirs.skipped) == (["evals/a"], ["evals/broken"], [])
    assert (mine.suite.root, theirs.suite.root) == ("/suite", "/other")
    first, second = controller.outputs.documents
    assert [c.dir for c in first.cases] == ["evals/a", "evals/b"]
    assert [c.aggregates.score for c in second.cases] == [0.5]
    assert ([e.dir for e in first.load_errors], [e.dir for e in second.load_errors]) == ([], ["evals/broken"])
    assert ([r.dir for r in first.skipped_runs], second.skipped_runs) == (["evals/a"], [])
    assert (first.suite.root, [p.name for p in first.suite.plugins]) == ("/suite", ["p"])
    assert (second.suite.root, [p.name for p in second.suite.plugins]) == ("/other", ["q"])
    assert (first.partial_reason, second.partial_reason) == ("cost_ceiling", None)
    assert pytest_session.exitstatus == 2  # partial wins over the case below the threshold and the load error
    other_folder = session.folders[Path(OTHER)]
    assert controller.outputs.written == [
        Written(first, session.folder.results_file, session.folder.report_file, "suite"),
        Written(second, other_folder.results_file, other_folder.report_file, "commit-craft"),
    ]
    assert read_results(session.folder.results_file).to_json() == first.to_json()
    assert read_results(other_folder.results_file).to_json() == second.to_json()
    assert html_reports == [(first, session.folder.report_file), (second, other_folder.report_file)]


def test_each_document_carries_the_sessions_notices_and_its_own(tmp_path):
    session = two_suites(tmp_path, EvalOptions(max_cost_usd=1.0))
    controller, _ = finished(
        session,
        run_report("evals/a", run(cost_usd=0.5), notices=["first suite"]),
        other("evals/a", run(cost_usd=0.25), notices=["second suite"]),
        skip_report("c", "with", 1, eval_root=OTHER),  # noticed while building the second document
    )
    ceiling = "⚠ cost ceiling $1 reached ($0.7500 spent): 1 run(s) not started, in c"  # the session's: in both
    assert controller.gather.collected.notices == ["first suite", "second suite", ceiling]
    expected = [["first suite", ceiling], ["second suite", ceiling]]  # a plugin's notices are not the other's
    assert [d.notices for d in controller.outputs.documents] == expected
    assert [read_results(w.results_path).notices for w in controller.outputs.written] == expected


def test_runs_that_skipped_paid_graders_are_counted_over_every_eval_dir(tmp_path):
    session = two_suites(tmp_path, EvalOptions(max_cost_usd=1.0))
    controller, _ = finished(
        session,
        run_report("evals/a", run(cost_usd=0.75, skipped_paid_graders=True)),
        other("evals/a", run(cost_usd=0.5, skipped_paid_graders=True)),
    )
    counted = [
        int(m.group(1))
        for n in controller.gather.collected.notices
        if (m := re.search(r"(\d+) run\(s\) skipped their", n))
    ]
    assert sum(counted) == 2


def test_json_with_several_eval_dirs_writes_every_suite(tmp_path, capsys):
    target = tmp_path / "out.json"
    controller, _ = finished(two_suites(tmp_path, EvalOptions(json_path=str(target))), run_report(), other())
    assert json.loads(target.read_text()) == {
        "schemaVersion": SCHEMA_VERSION,
        "suites": [d.to_json() for d in controller.outputs.documents],
    }
    assert SCHEMA_VERSION == 1
    assert capsys.readouterr().out == ""
    controller, _ = finished(two_suites(tmp_path / "dash", EvalOptions(json_path="-")), run_report(), other())
    out = capsys.readouterr().out
    assert json.loads(out) == {"schemaVersion": 1, "suites": [d.to_json() for d in controller.outputs.documents]}
    assert out == document_text({"schemaVersion": 1, "suites": [d.to_json() for d in controller.outputs.documents]})


def test_json_with_one_eval_dir_of_several_writes_the_document_itself(tmp_path):
    target = tmp_path / "out.json"
    controller, _ = finished(two_suites(tmp_path, EvalOptions(json_path=str(target))), other())
    assert json.loads(target.read_text()) == only(controller).to_json()


def test_report_option_with_several_eval_dirs_writes_a_page_per_suite(tmp_path, html_reports):
    controller, _ = finished(two_suites(tmp_path, EvalOptions(report="out/page.html")), run_report(), other())
    first, second = controller.outputs.documents
    pages = [Path("out/page-suite.html").absolute(), Path("out/page-commit-craft.html").absolute()]
    assert html_reports == [(first, pages[0]), (second, pages[1])]
    assert [w.report_path for w in controller.outputs.written] == pages


def test_every_results_path_is_remembered_for_lf(tmp_path):
    cache = FakeCache()
    session = two_suites(tmp_path, config=FakeConfig(cache=cache))
    controller, _ = finished(session, run_report(), other())
    assert cache.values == {CACHE_KEY: [str(w.results_path) for w in controller.outputs.written]}
    assert len(set(cache.values[CACHE_KEY])) == 2


def test_terminal_summary_names_each_suite_and_shows_the_notices_once(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(report_terminal, "write_summary", lambda *args, **kw: calls.append((args, kw)))
    controller, _ = finished(two_suites(tmp_path), run_report(), other())
    first, second = controller.outputs.written
    first.document.notices = second.document.notices = ["a notice of the whole session"]

    class Terminal:
        lines: list[str] = []

        def write_sep(self, sep: str, title: str) -> None:
            self.lines.append(f"{sep} {title}")

        def write_line(self, line: str) -> None:
            self.lines.append(line)

    terminal = Terminal()
    controller.pytest_terminal_summary(terminal)
    # the notices once, above both suites (under the first's heading they read as the first's)
    assert terminal.lines == ["= plugin eval · notices (all 2 suites)", "a notice of the whole session"]
    assert calls == [
        (
            (terminal, first.document, first.results_path, first.report_path, "suite"),
            {"expanded": False, "said_above": ["a notice of the whole session"]},
        ),
        (
            (terminal, second.document, second.results_path, second.report_path, "commit-craft"),
            {"expanded": False, "said_above": ["a notice of the whole session"]},
        ),
    ]


def test_terminal_summary_shows_each_suites_own_notices_under_it(tmp_path):
    controller, _ = finished(
        two_suites(tmp_path),
        run_report(notices=["first suite", "both"]),
        other(notices=["second suite", "both"]),
    )

    class Terminal:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def write_sep(self, sep: str, title: str) -> None:
            self.lines.append(f"{sep} {title}")

        def write_line(self, line: str, **markup) -> None:
            self.lines.append(line)

    terminal = Terminal()
    controller.pytest_terminal_summary(terminal)
    lines = terminal.lines
    shared, first, second = (
        lines.index(f"= plugin eval · {t}") for t in ("notices (all 2 suites)", "suite", "commit-craft")
    )
    assert lines[shared + 1 : first] == ["both"]
    assert "first suite" in lines[first:second] and "first suite" not in lines[second:]
    assert "second suite" in lines[second:] and "second suite" not in lines[:second]


# ---- case verdicts ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nodeid", "case_file"),
    [
        ("evals/a/prompt.md::a[with-plugin-2]", "evals/a/prompt.md"),
        ("evals/a/case.yaml::a[no-plugin-10]", "evals/a/case.yaml"),
        ("evals/a/prompt.md::a", None),  # the case's own verdict
        ("tests/test_x.py::test_y[1]", None),
        ("tests/test_x.py::test_y[with-plugin-x]", None),
        ("tests/test_x.py::test_y[with-plugin-1-extra]", None),
    ],
)
def test_case_file_of(nodeid, case_file):
    assert case_file_of(nodeid) == case_file


def test_case_items_know_when_a_cases_last_run_is_done():
    items = CaseItems()
    items.expect(
        ["a/prompt.md::a[with-plugin-1]", "a/prompt.md::a[no-plugin-1]", "t.py::t", "b/prompt.md::b[with-plugin-1]"]
    )
    items.expect(["a/prompt.md::a[with-plugin-1]"])  # a second worker's collection: the same items
    assert items.expected == {
        "a/prompt.md": {"a/prompt.md::a[with-plugin-1]", "a/prompt.md::a[no-plugin-1]"},
        "b/prompt.md": {"b/prompt.md::b[with-plugin-1]"},
    }
    assert items.finished("a/prompt.md::a[with-plugin-1]") is None
    assert items.finished("t.py::t") is None
    assert items.finished("c/prompt.md::c[with-plugin-1]") is None  # not announced
    assert items.finished("a/prompt.md::a[no-plugin-1]") == "a/prompt.md"
    assert items.finished("a/prompt.md::a[no-plugin-1]") == "a/prompt.md"  # reporting is the controller's to dedupe


def ids_of(*reports) -> list[str]:
    return [r.nodeid for r in reports if r.when == "call"]


def collect(controller: Controller, *nodeids: str) -> SimpleNamespace:
    """`pytest_collection_finish` then `pytest_runtestloop`, as pytest calls them without xdist."""
    pytest_session = collection(controller.session, *nodeids)
    controller.pytest_collection_finish(pytest_session)
    controller.pytest_runtestloop(pytest_session)
    return pytest_session


def test_the_verdicts_are_counted_as_tests(session):
    controller = make(session)
    a1, a2, b1 = run_item("evals/a"), run_item("evals/a", run("without", 1)), run_item("evals/b")
    pytest_session = collect(controller, *ids_of(*a1, *a2, *b1), "tests/test_x.py::test_y")
    assert pytest_session.testscollected == 4 + 2  # the items, and a verdict per case file


def test_a_cases_verdict_is_reported_once_its_last_run_is_torn_down(tmp_path):
    session = FakeSession(tmp_path, EvalOptions(threshold=0.6))
    controller = make(session)
    hook = session.config.hook
    a1 = run_item("evals/a", run("with", 1, 1.0, duration_seconds=2.0))
    a2 = run_item("evals/a", run("with", 2, 0.5, duration_seconds=1.0))
    a3 = run_item("evals/a", run("without", 1, 0.0))
    b1 = run_item("evals/b", run("with", 1, 0.5, graders=failing("pattern /hi/ not found")))
    collect(controller, *ids_of(*a1, *a2, *a3, *b1))
    feed(controller, a1, a2, a3[:2])
    assert hook.calls == []  # a's without-arm run is not torn down yet
    feed(controller, b1)
    b_file = case_file_for("evals/b")
    assert [c[0] for c in hook.calls] == ["logstart", "logreport", "logreport", "logreport", "logfinish"]
    assert hook.calls[0] == ("logstart", f"{b_file}::b", (b_file, None, "b (the case, over its runs)"))
    assert [(r.when, r.outcome) for r in (c[2] for c in hook.calls[1:4])] == [
        ("setup", "passed"),
        ("call", "failed"),
        ("teardown", "passed"),
    ]
    (b,) = hook.verdicts
    assert isinstance(b.longrepr, VerdictRepr)
    assert b.longrepr.reprcrash.message == (
        "says-hi: pattern /hi/ not found (with-plugin run 1) — score 0.50 < threshold 0.60"
    )
    assert b.keywords[verdicts.CASE_KEYWORD] == 1
    assert getattr(b, verdicts.VERDICT_ATTR) == b.longrepr.reprcrash.message
    feed(controller, a3[2])
    a_file = case_file_for("evals/a")
    assert hook.outcomes == [(f"{b_file}::b", "failed"), (f"{a_file}::a", "passed")]
    a = hook.verdicts[1]
    assert (a.duration, a.longrepr) == (3.0, None)
    assert a.user_properties == [("score", 0.75), ("scoreWithout", 0.0), ("delta", 0.75), ("runs", 3), ("costUsd", 0.0)]
    pytest_session = finish(controller)
    assert len(hook.verdicts) == 2  # nothing more at the end
    assert pytest_session.exitstatus == 1
    # The verdicts came back through pytest's hooks: neither is a failure outside the evals.
    assert controller.gather.non_eval_failures == 0
    # The document agrees with the verdicts.
    assert [(c.name, scoring.passes_threshold(c, 0.6)) for c in only(controller).cases] == [("a", True), ("b", False)]


def test_an_unscored_case_is_reported_skipped(session):
    controller = make(session)
    items = [
        run_item("evals/a", run("with", i, None, error="exit 1: API Error: 529", error_kind="api")) for i in (1, 2)
    ]
    collect(controller, *ids_of(*items[0], *items[1]))
    feed(controller, *items)
    (verdict,) = session.config.hook.verdicts
    assert verdict.outcome == "skipped"
    assert verdict.longrepr == (case_file_for(), 0, "Skipped: not scored: exit 1: API Error: 529")
    assert finish(controller).exitstatus == 2


def test_a_run_the_cost_ceiling_skipped_still_completes_its_case(tmp_path):
    session = FakeSession(tmp_path, EvalOptions(max_cost_usd=1.0))
    controller = make(session)
    ran = run_item("evals/a")
    skipped = skip_report("a", "with", 2)
    collect(controller, ran[1].nodeid, skipped.nodeid)
    feed(controller, ran, item_report("setup", skipped.nodeid), skipped)
    assert session.config.hook.calls == []
    feed(controller, item_report("teardown", skipped.nodeid))
    assert session.config.hook.outcomes == [(f"{case_file_for()}::a", "passed")]
    assert session.config.hook.verdicts[0].user_properties[-2] == ("runs", 1)


def test_with_xdist_the_items_come_from_each_workers_collection(session):
    controller = make(session)
    hook = session.config.hook
    a1, a2 = run_item("evals/a"), run_item("evals/a", run("with", 2, 0.0))
    ids = ids_of(*a1, *a2)
    pytest_session = session.pytest_session
    pytest_session.testscollected = 0
    controller.pytest_runtestloop(pytest_session)  # the controller collects nothing itself under xdist
    for worker in ("gw0", "gw1"):
        controller.pytest_xdist_node_collection_finished(SimpleNamespace(gateway=SimpleNamespace(id=worker)), ids)
    feed(controller, a2)  # the workers' reports arrive in any order
    assert hook.calls == []
    feed(controller, a1)
    assert hook.outcomes == [(f"{case_file_for()}::a", "failed")]
    finish(controller)
    assert len(hook.verdicts) == 1


def test_with_xdist_the_verdicts_are_counted_as_tests_too(session):
    controller = make(session)
    items = [run_item("evals/a"), run_item("evals/b")]
    ids = ids_of(*items[0], *items[1])
    pytest_session = session.pytest_session  # the pytest session the EvalSession started with
    controller.pytest_runtestloop(pytest_session)
    controller.pytest_xdist_node_collection_finished(SimpleNamespace(), ids)
    pytest_session.testscollected = len(ids)  # what xdist's DSession.worker_collectionfinish does next
    feed(controller, *items)
    assert len(session.config.hook.verdicts) == 2
    assert pytest_session.testscollected == len(ids) + 2


def test_with_lf_every_verdict_waits_for_the_runs_reused_at_the_end(tmp_path):
    previous = previous_document(tmp_path, tmp_path / "plugin")
    session, root, _ = lf_session(tmp_path, [str(previous)])
    controller = make(session)
    hook = session.config.hook
    a1 = [item_report("setup", lf_run(root, run("with", 1, 1.0)).nodeid), lf_run(root, run("with", 1, 1.0))]
    a1.append(item_report("teardown", a1[1].nodeid))
    collect(controller, a1[1].nodeid)
    feed(controller, a1)
    assert hook.calls == []
    finish(controller)
    # Only a ran in this session; its verdict counts run 2 of the previous session (b was not run: no verdict).
    a_file = case_file_for("evals/a", str(root / "evals"))
    assert hook.outcomes == [(f"{a_file}::a", "passed")]
    assert ("runs", 2) in hook.verdicts[0].user_properties


def test_every_case_not_reported_yet_is_reported_at_the_end(session):
    controller = make(session)
    hook = session.config.hook
    a1, a2 = run_item("evals/a", run("with", 1, 0.0)), run_item("evals/a", run("with", 2))
    collect(controller, *ids_of(*a1, *a2))
    # The session stopped after a's first run; b's runs were never announced by a collection.
    feed(controller, a1, run_item("evals/b"))
    assert hook.calls == []
    finish(controller)
    assert hook.outcomes == [(f"{case_file_for('evals/a')}::a", "failed"), (f"{case_file_for('evals/b')}::b", "passed")]
    assert [c[0] for c in hook.calls].count("logstart") == 2


def test_a_verdict_is_reported_once(session):
    controller = make(session)
    hook = session.config.hook
    a1 = run_item("evals/a")
    collect(controller, a1[1].nodeid)
    feed(controller, a1, a1[2])  # a teardown seen twice
    controller.gather.report_case(case_file_for())
    controller.gather.report_case(case_file_for(), scoring.aggregate(header()))  # a case given changes nothing
    controller.gather.report_case("never/seen/prompt.md")
    finish(controller)
    assert hook.outcomes == [(f"{case_file_for()}::a", "passed")]
    assert len(hook.calls) == 5


def test_foreign_items_report_no_verdict(session):
    controller = make(session)
    test = SimpleNamespace(when="teardown", failed=False, keywords={}, nodeid="tests/test_x.py::test_y")
    collect(controller, "tests/test_x.py::test_y")
    feed(controller, test)
    finish(controller)
    assert session.config.hook.calls == []


def test_verdicts_of_cases_in_several_eval_dirs_are_their_own(tmp_path):
    session = two_suites(tmp_path)
    controller = make(session)
    mine, theirs = run_item("evals/a"), run_item("evals/a", run(score=0.5), **other_kw())
    collect(controller, mine[1].nodeid, theirs[1].nodeid)
    assert mine[1].nodeid != theirs[1].nodeid  # the same case dir in two eval dirs: two case files
    feed(controller, mine, theirs)
    assert session.config.hook.outcomes == [
        (f"{case_file_for('evals/a')}::a", "passed"),
        (f"{case_file_for('evals/a', OTHER)}::a", "failed"),
    ]


def other_kw() -> dict:
    return dict(eval_root=OTHER, suite=suite_of("/other", "q"), label="commit-craft")


# ---- JUnit XML -----------------------------------------------------------------------------------------------


def test_junit_names_runs_and_verdicts_when_junit_xml_is_on(session):
    xml = FakeLogXML()
    session.config.stash[xml_key] = xml
    controller = make(session)
    a1, a2 = (
        run_item("evals/a", run("with", 1, 0.0, cost_usd=0.25), label="commit-craft"),
        run_item("evals/a", run("without", 1, 0.0), label="commit-craft"),
    )
    collect(controller, *ids_of(*a1, *a2))
    feed(controller, a1, a2)
    runs = {nodeid: xml.reporters[nodeid].attributes for nodeid in ids_of(*a1, *a2)}
    assert list(runs.values()) == [
        {"classname": "commit-craft.a", "name": "with-plugin-1"},
        {"classname": "commit-craft.a", "name": "no-plugin-1"},
    ]
    assert all(xml.reporters[n].properties == [] for n in runs)
    case = xml.reporters[f"{case_file_for()}::a"]
    assert case.attributes == {"classname": "commit-craft", "name": "a"}
    assert case.properties == [("score", 0.0), ("scoreWithout", 0.0), ("delta", 0.0), ("runs", 2), ("costUsd", 0.25)]


def test_without_junit_xml_no_report_is_renamed(session):
    xml = FakeLogXML()  # not in the config's stash: --junitxml is off
    controller = make(session)
    a1 = run_item("evals/a")
    collect(controller, a1[1].nodeid)
    feed(controller, a1)
    finish(controller)
    assert xml.reporters == {}
    assert session.config.hook.outcomes == [(f"{case_file_for()}::a", "passed")]


# ---- progress --------------------------------------------------------------------------------------------------


def test_the_progress_follows_the_runs_and_without_a_terminal_lists_them(session):
    terminal = SimpleNamespace(isatty=False, verbosity=0)
    session.config.plugins["terminalreporter"] = terminal
    controller = make(session)
    controller.pytest_sessionstart(None)
    progress = controller.progress
    assert progress is not None and progress.terminal is terminal
    a1, a2 = run_item("evals/a", run(cost_usd=0.25)), run_item("evals/a", run("without", 1, cost_usd=0.5))
    pytest_session = collection(session, *ids_of(*a1, *a2))
    pytest_session.config = SimpleNamespace(option=SimpleNamespace(verbose=0))
    controller.pytest_collection_finish(pytest_session)
    assert pytest_session.config.option.verbose == 1  # CI logs: a line per run
    assert progress.total == 2
    feed(controller, a1, a2)
    assert (progress.done, progress.spent) == (2, 0.75)
    finish(controller)
    assert progress.terminal is None


def test_a_runs_line_says_how_it_went_and_without_a_terminal_how_far_the_session_is(session):
    """The controller answers pytest_report_teststatus itself, with its own progress (no plugin looked up)."""
    report = run_report("evals/a", run(score=0.0, graders=failing()))
    report.passed = True
    quiet = make(session)
    assert quiet.pytest_report_teststatus(report, session.config) == (
        "passed",
        ".",
        ("PASSED score 0.00 ✗ says-hi", {"green": True}),
    )
    session.config.plugins["terminalreporter"] = SimpleNamespace(isatty=False, verbosity=0)
    logged = make(session)
    logged.pytest_sessionstart(None)
    word = logged.pytest_report_teststatus(report, session.config)[2][0]
    assert word.startswith("PASSED score 0.00 ✗ says-hi · runs 0")  # CI: the session's status in the line
    assert logged.pytest_report_teststatus(item_report("setup", report.nodeid), session.config) is None


def test_an_inactive_session_shows_no_progress(session):
    session.active = False
    controller = make(session)
    controller.pytest_sessionstart(None)
    assert controller.progress is None


def test_an_output_that_cannot_be_written_at_the_end_is_lost_alone(tmp_path, capsys):
    blocker = tmp_path / "blocker"
    blocker.write_text("")  # a file where --json's folder should be: as good as a full disk for this file
    session = FakeSession(tmp_path, EvalOptions(json_path=str(blocker / "out.json")))
    status, controller = exit_of(session, run_report("evals/a"))
    assert status == 1  # the session's record is incomplete: not a success, although the case passed
    err = capsys.readouterr().err
    assert "⚠ could not write " in err and "out.json: a file is where its folder should be — it is lost" in err
    assert session.folder.results_file.is_file()  # the other outputs are written
