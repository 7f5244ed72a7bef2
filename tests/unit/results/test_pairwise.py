"""compare --pairwise, its arithmetic: which runs are paired, how two answers make an outcome, the tally and its
interval, and the cost ceiling's place in the judging loop (results.pairwise)."""

from __future__ import annotations

import pytest
from helpers.documents import case_result

from pytest_plugin_eval import stats
from pytest_plugin_eval.results.comparison import BETTER, NO_CHANGE, WORSE
from pytest_plugin_eval.results.model import RunResult
from pytest_plugin_eval.results.pairwise import (
    LOSS,
    NO_DECISION,
    TIE,
    WIN,
    OrderAnswer,
    Pair,
    PairInput,
    WinTally,
    combine,
    judge_pairs,
    pair_runs,
    preferred_side,
)


def runs(*indexes: int) -> list[RunResult]:
    return [RunResult("with", i, score=1.0, passed=True) for i in indexes]


def test_run_i_is_paired_with_run_i_and_unequal_counts_keep_the_shorter_with_a_note():
    old = case_result("c", runs(3, 1, 2), runs(1))
    new = case_result("c", runs(1, 2), runs(1, 2))
    pairs, note = pair_runs(old, new)
    assert [(a.index, b.index) for a, b in pairs] == [(1, 1), (2, 2)]  # in index order, the without arm unused
    assert (
        note == "OLD has 3 with-arm run(s), NEW 2: the first 2 of each are paired (run i with run i), the rest left out"
    )
    same, none = pair_runs(new, new)
    assert len(same) == 2 and none is None


def answer(order: str, preferred: str | None) -> OrderAnswer:
    return OrderAnswer(order, preferred, "because")


@pytest.mark.parametrize(
    ("first", "second", "outcome"),
    [
        ("new", "new", WIN),
        ("old", "old", LOSS),
        ("old", "new", TIE),  # position bias: each order preferred the response shown first
        ("new", "tie", TIE),
        ("tie", "tie", TIE),
        (None, "new", NO_DECISION),  # a reply without a verdict is never a tie nor a win
        ("new", None, NO_DECISION),
    ],
)
def test_a_win_or_a_loss_needs_both_orders_to_agree(first, second, outcome):
    assert combine([answer("old_first", first), answer("new_first", second)]) == outcome


def test_letters_are_mapped_to_the_session_shown_in_that_position():
    assert preferred_side("old_first", "A") == "old" and preferred_side("old_first", "B") == "new"
    assert preferred_side("new_first", "A") == "new" and preferred_side("new_first", "B") == "old"
    assert preferred_side("new_first", "tie") == "tie" and preferred_side("old_first", None) is None


def test_why_says_which_orders_disagreed_and_what_a_silent_judge_said():
    biased = Pair(1, 1, 1, answers=(answer("old_first", "old"), answer("new_first", "new")))
    assert biased.why == "the orders disagree (old_first → old, new_first → new)"
    silent = Pair(
        2, 2, 2, answers=(OrderAnswer("old_first", None, "no verdict in the reply: 'hmm'"), answer("new_first", "new"))
    )
    assert silent.outcome == NO_DECISION and silent.why == "no verdict in the old_first answer (their replies below)"
    skipped = Pair(3, 3, 3, not_judged="NEW run 3 has no output (timeout)")
    assert skipped.outcome == NO_DECISION and skipped.why.startswith("not judged: NEW run 3")


def test_the_win_rate_counts_a_tie_half_and_leaves_undecided_pairs_out():
    tally = WinTally(wins=6, ties=2, losses=2, no_decision=5)
    assert tally.decided == 10 and tally.win_rate == pytest.approx(0.7)
    assert tally.interval(0.95) == stats.wilson_interval(7, 10)
    assert tally.verdict(0.95) == NO_CHANGE  # 7 of 10 does not clear 0.5
    assert WinTally(wins=10).verdict(0.95) == BETTER and WinTally(losses=10).verdict(0.95) == WORSE
    all_ties = WinTally(ties=8)
    assert all_ties.win_rate == 0.5 and all_ties.verdict(0.95) == NO_CHANGE
    nothing = WinTally(no_decision=4)
    assert nothing.win_rate is None and nothing.interval(0.95) is None and nothing.verdict(0.95) is None
    assert nothing.to_json(0.95)["noDecision"] == 4 and nothing.to_json(0.95)["verdict"] is None


def test_wilson_takes_half_counts_and_stays_inside_the_unit_interval():
    low, high = stats.wilson_interval(2.5, 5)
    assert 0 < low < 0.5 < high < 1 and (high - 0.5) == pytest.approx(0.5 - low)


GIVEN = PairInput("Say hello.", [], "Hi.", "Hello!")


def test_judging_asks_both_orders_and_stops_before_a_pair_could_pass_the_ceiling():
    asked = []

    def ask(case, pair, order, given):
        asked.append((case, pair, order))
        return OrderAnswer(order, "new", "better", cost_usd=0.01)

    plan = [
        ("a", [(1, 1, GIVEN), (2, 2, PairInput("t", [], None, "x", missing="OLD run 2 has no output (api)"))], None),
        ("b", [(1, 1, GIVEN), (2, 2, GIVEN)], "a note"),
    ]
    cases, spent, stopped = judge_pairs(plan, ask, lambda given: 0.03, max_cost_usd=0.05)
    # a/1 costs 0.02 (ceiling 0.03 fits under 0.05); b/1 would reach 0.05 at most... 0.02 + 0.03 = 0.05 fits; b/2 not.
    assert asked == [("a", 1, "old_first"), ("a", 1, "new_first"), ("b", 1, "old_first"), ("b", 1, "new_first")]
    assert spent == pytest.approx(0.04)
    assert stopped == "cost ceiling $0.05 (--max-cost-usd) reached: $0.0400 spent"
    a, b = cases
    assert [p.outcome for p in a.pairs] == [WIN, NO_DECISION] and a.pairs[1].not_judged.startswith("OLD run 2")
    assert [p.outcome for p in b.pairs] == [WIN, NO_DECISION] and b.pairs[1].not_judged == stopped
    assert b.note == "a note" and b.tally == WinTally(wins=1, no_decision=1)
    assert judge_pairs(plan, ask, lambda given: 0.03, max_cost_usd=None)[2] is None
