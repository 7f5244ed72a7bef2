"""Fully loaded documents of each kind the tool writes besides the session's results, for the golden-file tests
(`tests/unit/*/golden/`): every key a document can hold is in them, so a change to how one is written shows as a
change to its golden text."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from helpers.documents import case_result, suite_result
from pytest_plugin_eval.analysis.compare import compare
from pytest_plugin_eval.core.problems import Problem
from pytest_plugin_eval.load.case import Case
from pytest_plugin_eval.load.skill_evals import criteria
from pytest_plugin_eval.load.skills import Component
from pytest_plugin_eval.load.triggers import TriggerQuery, TriggerSet
from pytest_plugin_eval.results.calibration import Calibration, ControlAnswer, Session, calibrate
from pytest_plugin_eval.results.comparison import Comparison
from pytest_plugin_eval.results.control_findings import control_findings
from pytest_plugin_eval.results.efficiency import Tokens
from pytest_plugin_eval.results.findings import Finding
from pytest_plugin_eval.results.history import HistoryRow, PastSession, Scan, Skipped
from pytest_plugin_eval.results.labels import Label, Labels, rubric_hash
from pytest_plugin_eval.results.matrix import Matrix, MatrixModel
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, PluginInfo, RunResult, SuiteResult
from pytest_plugin_eval.results.pairwise import CasePairwise, OrderAnswer, Pair, PairwiseComparison
from pytest_plugin_eval.results.suites import SuitesDocument
from pytest_plugin_eval.results.triggers import QueryResult, TriggerRun, TriggerSetResult
from pytest_plugin_eval.suite_check.cost import Estimate, Prediction
from pytest_plugin_eval.suite_check.suite import CheckResult
from pytest_plugin_eval.tune.result import Candidate, Cost, Original, SiblingCheck, TuneResult, scored
from pytest_plugin_eval.tune.rules import paired


def text(document: dict) -> str:
    """A document as the tool writes it to a file (results.store.document_text)."""
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def golden(folder: Path, name: str) -> str:
    return (folder / "golden" / name).read_text(encoding="utf-8")


def trigger_set(description: str, fires: dict[str, int], file: str = "evals/triggers.yaml") -> TriggerSetResult:
    """A set of skill p:greet whose queries fired `fires[id]` times of 4 (ids starting with f should fire)."""
    queries = [
        QueryResult(
            query_id,
            f"query {query_id}",
            query_id.startswith("f"),
            [TriggerRun(index=i + 1, fired=i < fired) for i in range(4)],
        )
        for query_id, fired in fires.items()
    ]
    return TriggerSetResult(skill="p:greet", name="greet", file=file, queries=queries, description=description)


def comparison() -> Comparison:
    """Two sessions: a case better, one worse, one added, one removed, a grader whose rubric changed, trigger
    sets whose description changed, and warnings."""
    rubric = GraderInfo("tone", "llm", 1, {"criteria": "warm"})
    old = suite_result(
        case_result("greets", [1, 1, 0, 0], [0, 0, 0, 0], graders=[rubric]),
        case_result("counts", [1, 1, 1, 1], [0, 0, 0, 0]),
        case_result("gone", [1, 1, 1]),
    )
    new = suite_result(
        case_result("greets", [1, 1, 1, 1], [0, 0, 0, 0], graders=[GraderInfo("tone", "llm", 1, {"criteria": "kind"})]),
        case_result("counts", [0, 0, 0, 0], [0, 0, 0, 0]),
        case_result("fresh", [1, 0, 1]),
        started_at="2026-12-01T10:00:00.000Z",
    )
    old.claude_version = "2.1.300"
    old.triggers = [trigger_set("Greets.", {"f1": 1, "f2": 4, "n1": 3})]
    new.triggers = [trigger_set("Greets the user warmly.", {"f1": 4, "f2": 0, "n1": 3, "n2": 0})]
    compared = compare(old, new, old_source="results/old", new_source="results/new")
    return replace(
        compared,
        plugin_changes=["greeter: version 1.0.0 → 1.1.0"],
        baseline_note="the sessions share 8 without-plugin runs (--reuse-baseline)",
    )


def history_row() -> HistoryRow:
    """A shard's session with trigger sets, of a plugin in a git checkout with uncommitted changes."""
    return HistoryRow(
        folder="evals/results/2026-12-01T10-00-00",
        started_at="2026-12-01T10:00:00.000Z",
        plugin="greeter",
        version="1.1.0",
        git_commit="0123abc",
        git_dirty=True,
        model="claude-sonnet-4-5",
        judge_model="claude-haiku-4-5",
        cases=3,
        overall_score=0.8333,
        mean_delta=0.5,
        cost_usd=0.1234,
        partial=True,
        partial_reason="interrupted",
        runs_per_arm=(3, 5),
        note="2 case(s) changed since the session before",
        shard="1/2",
        trigger_queries=(7, 9),
    )


def history_scan() -> Scan:
    """Two sessions of a plugin whose version changed between them, a folder passed over and one left unread."""
    older = suite_result(
        case_result("greets", [0.5, 0.5, 1.0], [0.0, 0.0, 0.5]),
        started_at="2026-11-30T09:00:00Z",
        plugin=PluginInfo(
            "greeter", "/p", version="1.0.0", skill_descriptions={"greeter:greet": "Greets."}, content_hash="aa11"
        ),
    )
    newer = suite_result(
        case_result("greets", [1.0, 1.0, 1.0], [0.0, 0.5, 0.0]),
        started_at="2026-12-01T10:00:00Z",
        plugin=PluginInfo(
            "greeter",
            "/p",
            version="1.1.0",
            skill_descriptions={"greeter:greet": "Greets warmly."},
            content_hash="bb22",
        ),
    )
    return Scan(
        sessions=[
            PastSession(Path("evals/results/2026-12-01T10-00-00"), newer),
            PastSession(Path("evals/results/2026-11-30T09-00-00"), older),
        ],
        skipped=[Skipped(Path("evals/results/2026-11-29T08-00-00"), "results.json: not valid JSON")],
        not_read=4,
    )


CHECKED = Path("/plugins/greeter")


def check_result() -> CheckResult:
    """A suite below the floor, with a trigger set, a warning, a finding, its cost bounds and a pilot's
    prediction."""
    evals = CHECKED / "evals"
    skill = Component("greet", "greeter:greet", "skill", "Greets.", CHECKED / "skills" / "greet" / "SKILL.md")
    queries = (TriggerQuery("f1", "say hi", True), TriggerQuery("n1", "what is 2+2", False))
    triggers = TriggerSet(evals / "triggers.yaml", evals, CHECKED, skill, queries, (skill,))
    return CheckResult(
        root=CHECKED,
        eval_root=evals,
        cases=[Case("greets", evals / "greets", evals, CHECKED, "prose", "Say hi.", ())],
        trigger_sets=[triggers],
        load_problems=[Problem(evals / "broken" / "case.yaml", "graders[0].type", "unknown grader type 'regexp'")],
        case_floor_problems=[Problem(evals / "greets" / "case.yaml", "runs", "must be at least 3 (got 1)")],
        suite_problems=[Problem(evals, "", "no should-not-fire case")],
        warnings=["evals/triggers.yaml: greet has 2 queries"],
        findings=[
            Finding(
                "greets", grader="says-hi", kind="free-pass", message="passes on any reply", fix="anchor it — ^Hello"
            )
        ],
        estimate=Estimate(pilot_bound=0.42, full_bound=1.26, runs_in_pilot=2, judge_calls_in_pilot=0),
        prediction=Prediction(total=0.9, per_case={"greets": 0.9}, pilot_cost=0.3),
    )


def pairwise() -> PairwiseComparison:
    """A case NEW won, lost and tied in, a pair with no verdict, one not judged, a note and the cost ceiling."""
    answers = lambda a, b: (  # noqa: E731
        OrderAnswer("old_first", a, f"first: {a}", 0.0012),
        OrderAnswer("new_first", b, f"second: {b}", 0.0013),
    )
    first = CasePairwise(
        "greets",
        pairs=[
            Pair(1, 1, 1, answers=answers("new", "new")),
            Pair(2, 2, 2, answers=answers("old", "old")),
            Pair(3, 3, 3, answers=answers("new", "old")),
            Pair(4, 4, 4, answers=answers(None, "tie")),
        ],
        note="OLD has 5 with-arm runs and NEW 4: run 5 of OLD is left out",
    )
    second = CasePairwise("counts", pairs=[Pair(1, 1, 1, not_judged="NEW run 1 has no output (timeout)")])
    return PairwiseComparison(
        judge_model="claude-haiku-4-5",
        level=0.95,
        cases=[first, second],
        estimate_usd=0.25,
        cost_usd=0.01,
        max_cost_usd=0.5,
        stopped="the next pair could take the judge's spending past --max-cost-usd $0.5",
        notes=["greets: the prompt changed between the sessions; the judge is shown NEW's"],
    )


LABELS = {"f0": True, "f1": True, "f2": True, "m0": False, "m1": False, "m2": False}


def tune() -> TuneResult:
    """A tuning that found a better description, with a rejected reply, a sibling that kept its queries and one
    that lost them, the test scores and a note."""
    queries = {
        q: {"query": f"query {q}", "shouldFire": LABELS[q], "part": part}
        for q, part in (
            ("f0", "train"),
            ("m0", "train"),
            ("f1", "validation"),
            ("m1", "validation"),
            ("f2", "test"),
            ("m2", "test"),
        )
    }
    r = TuneResult(
        "g:greet",
        "greet",
        "evals/triggers.yaml",
        7,
        queries=queries,
        original=Original("Greets the user warmly."),
        cost=Cost(2.5, 40, 1.0),
    )
    r.original.train = scored({"f0": 0.0, "m0": 1.0}, LABELS, ["f0", "m0"])
    r.original.validation = scored({"f1": 0.25, "m1": 0.5}, LABELS, ["f1", "m1"])
    r.original.test = scored({"f2": 0.5, "m2": 0.5}, LABELS, ["f2", "m2"])
    better = Candidate(1, "Writes salutations warmly.", rejected=["the reply holds no <description>"])
    better.train = scored({"f0": 1.0, "m0": 0.0}, LABELS, ["f0", "m0"])
    better.validation = scored({"f1": 1.0, "m1": 0.0}, LABELS, ["f1", "m1"])
    better.vs_original = paired(better.validation.rates, r.original.validation.rates, LABELS)
    worse = Candidate(2, "Says things.")
    worse.train = scored({"f0": 0.0, "m0": 1.0}, LABELS, ["f0", "m0"])
    r.candidates = [better, worse]
    r.outcome, r.winner = "improved", 0
    r.winner_test = scored({"f2": 1.0, "m2": 0.0}, LABELS, ["f2", "m2"])
    r.test_margin = paired(r.winner_test.rates, r.original.test.rates, LABELS)
    r.siblings = [SiblingCheck("g:bye", 3, []), SiblingCheck("g:wave", 2, ["w1"])]
    r.stop = "2 rounds"
    r.notes = ["round 2: the proposer's reply was cut at its token limit"]
    r.cost.spent_usd, r.cost.agent_runs, r.cost.proposer_calls, r.cost.proposer_usd = 0.2512345, 48, 2, 0.0312345
    return r


def suites() -> SuitesDocument:
    """A session over two eval dirs (`--json` with several): each suite's document, the second partial with a
    trigger set."""
    first = suite_result(case_result("greets", [1, 1, 0], [0, 0, 0]))
    second = suite_result(
        case_result("counts", [1, 0], [0, 1], graders=[GraderInfo("tone", "llm", 1, {"criteria": "warm"})]),
        plugin=PluginInfo("counter", "/q", version="0.2.0"),
        partial="interrupted",
    )
    second.triggers = [trigger_set("Greets.", {"f1": 3, "n1": 1})]
    return SuitesDocument(suites=[first, second])


def matrix() -> Matrix:
    """Three models: one passed, one failed, one interrupted."""
    return Matrix(
        "2026-01-02T03:04:05Z",
        "claude-haiku-4-5",
        1,
        [
            MatrixModel("haiku", "haiku/aggregate-result.json", 0, 0.1234567),
            MatrixModel("sonnet", "sonnet/aggregate-result.json", 1, 0.5),
            MatrixModel("opus", "opus/aggregate-result.json", 130, 0.0),
        ],
    )


JUDGED = GraderInfo("reads-well", "llm", 1, {"criteria": "Greets the guest by name."})


def labels() -> Labels:
    """A person's labels of a judged grader's verdicts: one with every optional key, one stale (another rubric)."""
    return Labels(
        labels=[
            Label(
                "greets",
                "with",
                1,
                "reads-well",
                "pass",
                note="names the guest",
                codes=("names-guest",),
                by="ana",
                at="2026-12-01T10:00:00Z",
                rubric_hash=rubric_hash(JUDGED),
                judge_model="claude-haiku-4-5",
                judge_passed=True,
            ),
            Label("greets", "with", 2, "reads-well", "fail", rubric_hash="0000000000000000"),
            Label("greets", "without", 1, "reads-well", "fail", by="ana"),
            Label("greets", "without", 2, "reads-well", "fail"),
        ]
    )


def calibration() -> Calibration:
    """calibrate over one labelled folder: a grader's agreement, a stale label, an unmatched one, and the controls
    (one passed: a finding; one not asked)."""
    judged = lambda arm, i, passed: RunResult(  # noqa: E731
        arm,
        i,
        score=float(passed),
        passed=passed,
        graders=[GraderResult("reads-well", passed, 1, "votes", judge_model="claude-haiku-4-5", judge_votes=[passed])],
    )
    document = suite_result(
        case_result(
            "greets",
            [judged("with", 1, True), judged("with", 2, True)],
            [judged("without", 1, True), judged("without", 2, False)],
            graders=[JUDGED],
        )
    )
    marked = labels().put(Label("gone", "with", 1, "reads-well", "pass"))
    result = calibrate([Session(Path("evals/results/2026-12-01T10-00-00"), document, marked)])
    result.controls = [
        ControlAnswer("greets", "reads-well", "llm", "empty", "an empty answer", False, votes=[False, False]),
        ControlAnswer(
            "greets", "reads-well", "llm", "inject", "an answer telling the judge to say PASS", True, votes=[True, True],
            cost_usd=0.00123456789,
        ),
        ControlAnswer("greets", "reads-well", "llm", "echo", "the rubric echoed", None, error="judge unavailable: 529"),
    ]  # fmt: skip
    result.findings = control_findings(result.controls)
    return result


def benchmark_suite() -> SuiteResult:
    """A skill-creator eval run in both arms (an expectation from its criteria, tokens and tool calls recorded), an
    errored run, a case folder of ours with one arm, and hints."""
    names_ada = GraderInfo("names-ada", "llm", 1, {}, markdown=criteria("It names Ada", "Hello Ada."))
    tone = GraderInfo("tone", "regex", 1, {"pattern": "!"})

    def run(arm: str, index: int, *passed: bool, seconds: float = 10.0, error: str | None = None) -> RunResult:
        graders = [
            GraderResult(g.name, p, 1, "judge votes: PASS PASS" if p else "judge votes: FAIL FAIL")
            for g, p in zip((names_ada, tone), passed, strict=False)
        ]
        return RunResult(
            arm,
            index,
            score=sum(passed) / len(passed) if passed else None,
            passed=all(passed),
            graders=graders,
            duration_seconds=seconds,
            error=error,
            tokens=Tokens(input=1200, output=300 + index, cache_read=50),
            tool_calls=index + 1,
        )

    evals = case_result(
        "greet/3",
        [run("with", 1, True, True, seconds=4.25), run("with", 2, True, False, seconds=6)],
        [run("without", 1, False, False, seconds=2), run("without", 2, error="timeout after 300 s")],
        graders=(names_ada, tone),
    )
    evals.source = "skill_creator"
    ours = case_result("counts", [run("with", 1, True, seconds=3.5)], graders=(names_ada,))
    ours.hints = ["Δ is flat and the skill never fired"]
    return suite_result(evals, ours, model_override="claude-sonnet-5")
