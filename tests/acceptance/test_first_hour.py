"""The first hour of a new user, end to end (the real Claude Code against the scripted endpoint): what the session
says matches what ran."""

from __future__ import annotations

from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT

TYPO = "---\ntype: tool_used\ntool: Skill\ninput_match: greeters:greet\n---\n"


def test_an_indicator_that_misspells_the_skill_is_blamed_not_the_description(suite):
    """Issue 34 item 19: every with-plugin run called the skill; the indicator's input_match has a typo."""
    suite.case(
        "greets",
        frontmatter={"runs": 2},
        graders={"greeting": GREETING_GRADERS["greeting"], "skill-fired": TYPO},
        script={**GREETING_SCRIPT, "without": [{"text": "Hello from the plugin, friend."}]},
    )
    run = suite.run()
    [hint] = run.case("greets")["hints"]
    assert hint.startswith(
        "the plugin-fired indicator failed in every with-plugin run, yet every one of them called Skill "
        "(greeter:greet): its input_match 'greeters:greet' matches none of these calls"
    ), hint
    assert "sharpen" not in run.out
