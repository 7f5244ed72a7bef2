"""Unit tests for the scoring rules (pytest_plugin_eval.results.scoring): a run's score from its graders, a case's
aggregates from its runs, the suite's from its cases, trends, why a session is partial, and its exit status."""

from __future__ import annotations

import math

import pytest

from pytest_plugin_eval.results import scoring
from pytest_plugin_eval.results.model import CaseAggregates, CaseResult, GraderResult, RunResult, SuiteAggregates
from pytest_plugin_eval.results.scoring import (
    FLAT_DELTA,
    aggregate,
    case_aggregates,
    exit_status,
    judge_cost,
    partial_reason,
    passes_threshold,
    run_score,
    suite_aggregates,
    trend,
)

SINGLE_ARM_KEYS = ["score", "passRate", "stdevWith", "passAtK", "passHatK"]
TWO_ARM_KEYS = [
    "score",
    "passRate",
    "scoreWithout",
    "passRateWithout",
    "delta",
    "stdevWith",
    "stdevWithout",
    "deltaCI",
    "deltaSignificant",
    "passAtK",
    "passHatK",
]
NO_RUNS: dict[str, object] = {"score": None, "passRate": None, "stdevWith": None, "passAtK": {}, "passHatK": {}}


def gr(weight: float, passed: bool, scored: bool = True, name: str = "g", cost: float = 0.0) -> GraderResult:
    return GraderResult(name=name, passed=passed, weight=weight, explanation="", scored=scored, cost_usd=cost)


# ---- run_score -----------------------------------------------------------------------------------------------


def test_run_score_weights():
    assert run_score([gr(3, True), gr(1, False)]) == 0.75
    assert run_score([gr(3, False), gr(1, True)]) == 0.25
    assert run_score([gr(1, True), gr(1, True)]) == 1.0
    assert run_score([gr(2.5, False)]) == 0.0


def test_run_score_ignores_uncounted():
    # An indicator/errored/skipped grader does not move the score, passed or not.
    assert run_score([gr(3, True), gr(1, False), gr(100, False, scored=False)]) == 0.75
    assert run_score([gr(1, False), gr(5, True, scored=False)]) == 0.0


def test_run_score_none_when_nothing_counts():
    assert run_score([]) is None
    assert run_score([gr(1, True, scored=False), gr(2, False, scored=False)]) is None


def test_run_score_reads_scored_not_the_flags():
    # `scored` is the one thing that decides: the flags it was computed from are not read again.
    errored = GraderResult("j", False, 1, "judge unavailable", errored=True, scored=False)
    skipped = GraderResult("k", False, 1, "skipped: cost ceiling", skipped=True, scored=False)
    indicator = GraderResult("s", False, 1, "Skill never called", with_only=True, scored=False)
    assert run_score([gr(1, True), errored, skipped, indicator]) == 1.0


def test_judge_cost():
    assert judge_cost([]) == 0
    assert judge_cost([gr(1, True, cost=0.25), gr(1, False), gr(1, True, scored=False, cost=0.125)]) == 0.375
    assert judge_cost(g for g in [gr(1, True, cost=0.5)]) == 0.5


# ---- case_aggregates -----------------------------------------------------------------------------------------


def run(score, passed, arm: str = "with", index: int = 1, cost: float = 0.0) -> RunResult:
    return RunResult(arm=arm, index=index, score=score, passed=passed, cost_usd=cost)


def test_case_aggregates_with_arm_only():
    agg = case_aggregates([run(1, True), run(0.5, False), run(0, False)])
    out = agg.to_json()
    assert out == {
        "score": 0.5,
        "passRate": pytest.approx(1 / 3),
        "stdevWith": pytest.approx(0.5),
        # 1 of 3 runs passed: pass@2 = 1 − C(2,2)/C(3,2), pass^2 = C(1,2)/C(3,2).
        "passAtK": {"1": pytest.approx(1 / 3), "2": pytest.approx(2 / 3), "3": 1.0},
        "passHatK": {"1": pytest.approx(1 / 3), "2": 0.0, "3": 0.0},
    }
    assert list(out) == SINGLE_ARM_KEYS
    assert agg.two_arm is False


def test_case_aggregates_ignore_runs_without_score():
    out = case_aggregates([run(1, True), run(None, False), run(0.5, True), run(None, True)]).to_json()
    assert out == {
        "score": 0.75,
        "passRate": 1.0,
        "stdevWith": pytest.approx(0.3535533905932738),
        "passAtK": {"1": 1.0, "2": 1.0},
        "passHatK": {"1": 1.0, "2": 1.0},
    }


def test_case_aggregates_no_runs():
    assert case_aggregates([]).to_json() == NO_RUNS
    assert case_aggregates([run(None, False)]).to_json() == NO_RUNS
    # An empty without arm adds nothing.
    out = case_aggregates([run(1, True)], []).to_json()
    assert out == {"score": 1.0, "passRate": 1.0, "stdevWith": None, "passAtK": {"1": 1.0}, "passHatK": {"1": 1.0}}
    assert list(out) == SINGLE_ARM_KEYS


def test_case_aggregates_two_arm_delta():
    agg = case_aggregates([run(1, True), run(0.5, False)], [run(0.25, False, "without"), run(0.25, False, "without")])
    out = agg.to_json()
    assert {k: out[k] for k in ("score", "passRate", "scoreWithout", "passRateWithout", "delta")} == {
        "score": 0.75,
        "passRate": 0.5,
        "scoreWithout": 0.25,
        "passRateWithout": 0.0,
        "delta": 0.5,
    }
    assert list(out) == TWO_ARM_KEYS
    assert agg.two_arm is True
    assert out["stdevWith"] == pytest.approx(0.3535533905932738) and out["stdevWithout"] == 0.0
    # stats.delta_interval: each arm gets runs scoring 1 and 0 → (1, 0.5, 1, 0) against (0.25, 0.25, 1, 0)
    assert out["deltaCI"] == pytest.approx([-0.2978265878603635, 0.7978265878603635])
    assert isinstance(out["deltaCI"], list)
    assert out["deltaSignificant"] is False
    # pass@k and pass^k are over the with arm (1 of 2 runs passed).
    assert (out["passAtK"], out["passHatK"]) == ({"1": 0.5, "2": 1.0}, {"1": 0.5, "2": 0.0})


def test_case_aggregates_delta_none_when_an_arm_has_no_score():
    out = case_aggregates([run(1, True)], [run(None, False, "without")]).to_json()
    assert {
        k: out[k]
        for k in ("score", "passRate", "scoreWithout", "passRateWithout", "delta", "deltaCI", "deltaSignificant")
    } == {
        "score": 1.0,
        "passRate": 1.0,
        "scoreWithout": None,
        "passRateWithout": None,
        "delta": None,
        "deltaCI": None,
        "deltaSignificant": None,
    }
    assert list(out) == TWO_ARM_KEYS
    out = case_aggregates([], [run(0.5, False, "without")]).to_json()
    assert out["delta"] is None and out["scoreWithout"] == 0.5 and out["score"] is None


def test_arm_statistics():
    # What each arm reports: the mean score, the pass rate and the spread over the runs that have a score.
    agg = case_aggregates(
        [run(1, True), run(0.5, False), run(0, False), run(None, True)],
        [run(0.2, False, "without"), run(0.8, True, "without"), run(None, False, "without")],
    )
    assert agg.score == 0.5
    assert agg.pass_rate == pytest.approx(1 / 3)
    assert agg.stdev_with == pytest.approx(0.5)  # sample standard deviation of 1, 0.5, 0
    assert agg.score_without == pytest.approx(0.5) and agg.pass_rate_without == 0.5
    assert agg.stdev_without == pytest.approx(math.sqrt(0.18))
    single = case_aggregates([run(0.7, True)])
    assert (single.score, single.pass_rate, single.stdev_with) == (0.7, 1.0, None)
    empty = case_aggregates([])
    assert (empty.score, empty.pass_rate, empty.stdev_with) == (None, None, None)


def test_pass_at_k_and_pass_hat_k_over_the_with_arm():
    # 7 of 10 scored runs passed (a run without a score does not count, whatever its flag says).
    runs = [run(1, True)] * 7 + [run(0.5, False)] * 3 + [run(None, True), run(None, False)]
    agg = case_aggregates(runs, [run(0, False, "without")] * 4)
    assert list(agg.pass_at_k or {}) == list(range(1, 11)) and list(agg.pass_hat_k or {}) == list(range(1, 11))
    assert agg.pass_at_k[1] == agg.pass_hat_k[1] == agg.pass_rate == 0.7
    assert agg.pass_at_k[3] == pytest.approx(1 - 1 / 120) and agg.pass_hat_k[3] == pytest.approx(35 / 120)
    assert agg.pass_at_k[10] == 1.0 and agg.pass_hat_k[10] == 0.0
    out = agg.to_json()
    assert list(out["passAtK"]) == [str(k) for k in range(1, 11)]
    assert out["passHatK"]["3"] == pytest.approx(35 / 120)


def test_delta_interval_is_significant_only_when_it_excludes_zero():
    # +0.33 on three runs (1, 0, 0 against 0, 0, 0) is not a result: the interval spans 0.
    noisy = case_aggregates([run(1, True), run(0, False), run(0, False)], [run(0, False, "without")] * 3).to_json()
    assert noisy["delta"] == pytest.approx(1 / 3)
    assert noisy["deltaCI"][0] < 0 < noisy["deltaCI"][1] and noisy["deltaSignificant"] is False
    # Three passes against three failures is a result, but not a zero-width one.
    steady = case_aggregates([run(1, True)] * 3, [run(0, False, "without")] * 3).to_json()
    assert steady["deltaCI"] == pytest.approx([0.10416397415635087, 1.0]) and steady["deltaSignificant"] is True
    worse = case_aggregates([run(0, False)] * 3, [run(1, True, "without")] * 3).to_json()
    assert worse["deltaCI"] == pytest.approx([-1.0, -0.10416397415635087]) and worse["deltaSignificant"] is True
    # Two against two is not.
    two = case_aggregates([run(1, True)] * 2, [run(0, False, "without")] * 2).to_json()
    assert two["deltaCI"][0] < 0 < two["deltaCI"][1] and two["deltaSignificant"] is False
    same = case_aggregates([run(1, True)] * 3, [run(1, True, "without")] * 3).to_json()
    assert same["deltaCI"] == pytest.approx([-0.4958360258436491, 0.4958360258436491])
    assert same["deltaSignificant"] is False
    one_run = case_aggregates([run(1, True)], [run(0, False, "without")]).to_json()
    assert one_run["deltaCI"] is None and one_run["deltaSignificant"] is None


# ---- aggregate (a case's runs in the document) ---------------------------------------------------------------


def case_with_runs(*runs: RunResult, arms: tuple[str, ...] = ()) -> CaseResult:
    by_arm: dict[str, list[RunResult]] = {arm: [] for arm in arms}
    for r in runs:
        by_arm.setdefault(r.arm, []).append(r)
    return CaseResult(
        name="c",
        dir="c",
        source="prose",
        prompt="p",
        runs_per_case=3,
        timeout_seconds=300,
        max_turns=10,
        graders=[],
        runs_per_arm=3,
        arms=by_arm,
    )


def test_aggregate():
    case = aggregate(
        case_with_runs(
            run(0.0, False, "with", 2, 0.5), run(0.5, False, "without", 1, 0.25), run(1.0, True, "with", 1, 1.0)
        )
    )
    doc = case.to_json()
    assert list(doc["arms"]) == ["with", "without"]
    assert [r["score"] for r in doc["arms"]["with"]] == [1.0, 0.0]  # index order
    assert [r["index"] for r in doc["arms"]["with"]] == [1, 2]
    assert {k: doc["aggregates"][k] for k in ("score", "passRate", "scoreWithout", "passRateWithout", "delta")} == {
        "score": 0.5,
        "passRate": 0.5,
        "scoreWithout": 0.5,
        "passRateWithout": 0.0,
        "delta": 0.0,
    }
    assert list(doc["aggregates"]) == TWO_ARM_KEYS
    assert list(doc)[-2:] == ["arms", "aggregates"]
    assert case.two_arm is True and case.cost_usd == 1.75


def test_aggregate_always_has_a_with_arm():
    doc = aggregate(case_with_runs(arms=())).to_json()
    assert doc["arms"] == {"with": []}
    assert doc["aggregates"] == NO_RUNS
    doc = aggregate(case_with_runs(run(1.0, True, "without"))).to_json()
    assert list(doc["arms"]) == ["with", "without"]
    assert doc["arms"]["with"] == []
    assert list(doc["aggregates"]) == TWO_ARM_KEYS


def test_aggregate_drops_an_empty_without_arm():
    case = aggregate(case_with_runs(run(1.0, True), arms=("without", "with")))
    assert list(case.arms) == ["with"]
    assert case.two_arm is False
    assert list(case.to_json()["aggregates"]) == SINGLE_ARM_KEYS


# ---- suite_aggregates ----------------------------------------------------------------------------------------


def case(score, pass_rate, **more) -> CaseResult:
    """A case with the given aggregates (document names: scoreWithout, passRateWithout, delta…)."""
    c = case_with_runs()
    c.aggregates = CaseAggregates.from_json({"score": score, "passRate": pass_rate, **more})
    return c


def test_suite_aggregates_single_arm():
    cases = [case(0.8, 1.0), case(0.5, 0.0), case(0.7, 0.5)]
    agg = suite_aggregates(cases, threshold=0.7)
    assert isinstance(agg, SuiteAggregates)
    out = agg.to_json()
    assert out == {"casesTotal": 3, "casesPassed": 2, "overallScore": pytest.approx(2.0 / 3), "overallPassRate": 0.5}
    assert list(out) == ["casesTotal", "casesPassed", "overallScore", "overallPassRate"]
    assert "meanDelta" not in out


def test_suite_threshold_equality_passes():
    assert passes_threshold(case(0.7, 1.0), 0.7) is True
    assert passes_threshold(case(0.69999, 1.0), 0.7) is False
    assert passes_threshold(case(None, None), 0.0) is False
    assert suite_aggregates([case(1.0, 1.0)], threshold=1.0).to_json()["casesPassed"] == 1


def test_suite_overall_pass_rate_is_the_mean_of_case_rates():
    # Not the pooled rate over runs: case rates 1/3 and 1 average to 2/3.
    cases = [case(0.5, 1 / 3), case(1.0, 1.0), case(None, None)]
    out = suite_aggregates(cases, threshold=0.5).to_json()
    assert out["overallPassRate"] == pytest.approx(2 / 3)
    assert out["overallScore"] == 0.75
    assert out["casesTotal"] == 3
    assert out["casesPassed"] == 2


def test_suite_aggregates_without_scores():
    assert suite_aggregates([], 0.5).to_json() == {
        "casesTotal": 0,
        "casesPassed": 0,
        "overallScore": 0,
        "overallPassRate": 0,
    }
    assert suite_aggregates([case(None, None)], 0.5).to_json() == {
        "casesTotal": 1,
        "casesPassed": 0,
        "overallScore": 0,
        "overallPassRate": 0,
    }


def test_suite_mean_delta_only_for_two_arm():
    two = [
        case(1.0, 1.0, scoreWithout=0.5, passRateWithout=0.0, delta=0.5),
        case(0.5, 0.0, scoreWithout=0.75, passRateWithout=1.0, delta=-0.25),
        case(0.5, 0.0, scoreWithout=None, passRateWithout=None, delta=None),
    ]
    out = suite_aggregates(two, 0.5).to_json()
    assert out["meanDelta"] == pytest.approx(0.125)
    assert list(out) == ["casesTotal", "casesPassed", "overallScore", "overallPassRate", "meanDelta"]
    none = [case(None, None, scoreWithout=None, passRateWithout=None, delta=None)]
    out = suite_aggregates(none, 0.5).to_json()
    assert "meanDelta" in out and out["meanDelta"] is None
    assert "meanDelta" not in suite_aggregates([case(1.0, 1.0)], 0.5).to_json()
    # One two-arm case is enough for the suite to report a mean Δ (over the cases that have one).
    mixed = suite_aggregates([case(1.0, 1.0), two[1]], 0.5).to_json()
    assert mixed["meanDelta"] == -0.25


def test_suite_aggregates_over_aggregated_cases():
    a = aggregate(case_with_runs(run(1.0, True, "with", 1, 0.5), run(0.5, False, "with", 2, 0.25)))
    b = aggregate(case_with_runs(run(0.0, False, "with", 1, 0.125)))
    out = suite_aggregates([a, b], threshold=0.7).to_json()
    assert out == {"casesTotal": 2, "casesPassed": 1, "overallScore": 0.375, "overallPassRate": 0.25}
    assert a.cost_usd + b.cost_usd == 0.875


# ---- trend ---------------------------------------------------------------------------------------------------


def test_trend():
    assert FLAT_DELTA == 0.05
    assert trend(None) is None
    assert trend(0.0) == "flat"
    assert trend(0.049) == "flat" and trend(-0.049) == "flat"
    assert trend(FLAT_DELTA) == "improved" and trend(-FLAT_DELTA) == "regressed"
    assert trend(0.5) == "improved" and trend(-1.0) == "regressed"


# ---- partial_reason ------------------------------------------------------------------------------------------


def failing_run(error_kind: str | None = None, skipped_paid: bool = False, judge_errored: bool = False) -> RunResult:
    graders = [GraderResult("j", False, 1, "judge unavailable", scored=False, errored=judge_errored)]
    return RunResult(
        arm="with",
        index=1,
        score=None,
        passed=False,
        error_kind=error_kind,
        skipped_paid_graders=skipped_paid,
        graders=graders,
    )


def test_partial_reason_none_for_a_complete_session():
    assert partial_reason([], None, False) is None
    assert (
        partial_reason(
            [run(1.0, True), failing_run("timeout"), failing_run("max_turns"), failing_run("agent")], None, False
        )
        is None
    )


def test_partial_reason_each_cause():
    assert partial_reason([], "SIGINT", False) == "interrupted"
    assert partial_reason([], "SIGTERM", False) == "interrupted"
    assert partial_reason([], None, True) == "cost_ceiling"
    assert partial_reason([failing_run(skipped_paid=True)], None, False) == "cost_ceiling"
    assert partial_reason([failing_run("auth")], None, False) == "auth_failed"
    assert partial_reason([failing_run("api")], None, False) == "api_error"
    assert partial_reason([failing_run("sandbox")], None, False) == "sandbox_failed"
    assert partial_reason([failing_run(judge_errored=True)], None, False) == "judge_error"


def test_partial_reason_precedence():
    # interrupted > cost_ceiling > auth_failed > api_error > judge_error
    judge, api, auth = failing_run(judge_errored=True), failing_run("api"), failing_run("auth")
    ceiling = failing_run(skipped_paid=True)
    everything = [judge, api, auth, ceiling]
    assert partial_reason(everything, "SIGINT", True) == "interrupted"
    assert partial_reason(everything, None, True) == "cost_ceiling"
    assert partial_reason(everything, None, False) == "cost_ceiling"
    assert partial_reason([judge, api, auth], None, False) == "auth_failed"
    assert partial_reason([judge, api], None, False) == "api_error"
    assert partial_reason([judge], None, False) == "judge_error"
    # Order of the runs does not matter.
    assert partial_reason([auth, api, judge], None, False) == "auth_failed"


def test_partial_reason_reads_any_iterable():
    runs = (r for r in [failing_run("api"), failing_run(judge_errored=True)])
    assert partial_reason(runs, None, False) == "api_error"


# ---- exit_status ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "interrupted, partial, failed, status",
    [
        (None, False, False, 0),
        (None, False, True, 1),
        (None, True, False, 2),
        (None, True, True, 2),
        ("SIGINT", False, False, 130),
        ("SIGINT", True, True, 130),
        ("SIGTERM", False, False, 143),
        ("SIGTERM", True, True, 143),
    ],
)
def test_exit_status(interrupted, partial, failed, status):
    assert exit_status(interrupted=interrupted, partial=partial, failed=failed) == status


def test_exit_status_constants():
    assert (
        scoring.EXIT_OK,
        scoring.EXIT_FAILED,
        scoring.EXIT_PARTIAL,
        scoring.EXIT_INTERRUPTED,
        scoring.EXIT_TERMINATED,
    ) == (0, 1, 2, 130, 143)
