"""A notice said of several cases or queries with the same words is shown once, naming whose it is."""

from __future__ import annotations

from pytest_plugin_eval.report.notice_groups import grouped

NO_MOCK = 'mocks: "plugin:legal:box" has no mock and is NOT started — its tools are unavailable to the runs'


def test_one_message_said_of_many_is_one_line_naming_the_first_few():
    whose = ["leaves-email-alone", "reviews-an-nda", "brief/brief-me-on", "brief/need-a-quick", "brief/draft-an"]
    notices = [f"{w}: {NO_MOCK}" for w in whose] + ["⚠ --max-cost-usd 2: reached", f"solo: {NO_MOCK} (other)"]
    assert grouped(notices) == [
        f"{NO_MOCK} (said of 5: leaves-email-alone, reviews-an-nda, brief/brief-me-on and 2 more)",
        "⚠ --max-cost-usd 2: reached",
        f"solo: {NO_MOCK} (other)",
    ]


def test_notices_said_once_are_left_as_they_are():
    notices = ['⚠ case "a": allowed_tools entry Reed is no tool', "a: one thing", "b: another thing"]
    assert grouped(notices) == notices
