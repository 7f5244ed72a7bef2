"""The proposer of `plugin-eval tune` (tune/propose.py): its prompt, the checks on its reply, the second
ask after a refused reply, and the scripted replies' file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_plugin_eval.load.skills import Component
from pytest_plugin_eval.tune.apply import MAX_DESCRIPTION
from pytest_plugin_eval.tune.propose import (
    Attempt,
    Failure,
    Proposer,
    ProposerScriptError,
    load_proposer_script,
    parse_reply,
    prompt,
)


def test_reply_is_the_text_between_the_tags_on_one_line():
    assert parse_reply("Sure.\n<description>Writes commit\n  messages.</description>\n") == "Writes commit messages."


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Writes commit messages.", "no <description>"),
        ("<description>a</description><description>b</description>", "2 descriptions"),
        ("<description>  </description>", "empty"),
        (f"<description>{'x' * (MAX_DESCRIPTION + 1)}</description>", f"Claude Code accepts {MAX_DESCRIPTION}"),
        ("<description>Use <b>this</b></description>", "XML tag"),
    ],
)
def test_anything_else_is_refused_with_the_reason(reply, why):
    with pytest.raises(ValueError, match=why):
        parse_reply(reply)


def test_prompt_holds_the_skill_its_siblings_failures_and_attempts():
    text = prompt(
        "greeter:greet",
        "---\nname: greet\ndescription: Old.\n---\nBody of the skill.\n",
        [Component("farewell", "greeter:farewell", "skill", "Says goodbye.", Path("skills/farewell/SKILL.md"))],
        "Old.",
        [Failure("write my salutation", True, 1, 5), Failure("translate this", False, 4, 5)],
        [Attempt("Tried once.", 0.5, 2, 4)],
    )
    assert "Body of the skill." in text and "greeter:farewell: Says goodbye." in text
    assert "should fire, fired 1/5: write my salutation" in text
    assert "should NOT fire, fired 4/5: translate this" in text
    assert '2/4 right (score 0.50): "Tried once."' in text
    assert f"at most {MAX_DESCRIPTION} characters" in text and "<description>" in text


def test_the_proposer_sees_descriptions_as_claude_does_when_to_use_appended():
    """Issue 34 item 4: Claude Code appends `when_to_use` to the description the model sees."""
    sibling = Component(
        "farewell", "greeter:farewell", "skill", "Says goodbye.", Path("skills/farewell/SKILL.md"), "When leaving."
    )
    text = prompt("greeter:greet", "---\n---\n", [sibling], "Old.", [], [], when_to_use="When greeted.")
    assert "greeter:farewell: Says goodbye. - When leaving." in text
    assert 'followed by " - " and the skill\'s `when_to_use`, which stays as it is' in text
    assert text.count("When greeted.") == 1
    assert "when_to_use" not in prompt("p:s", "---\n---\n", [], "Old.", [], [])


def test_prompt_without_failures_or_attempts():
    text = prompt("p:s", "---\n---\n", [], "Old.", [], [])
    assert "every training request right" in text and "tried so far" not in text and "(none)" in text


def replies(*texts: str, errors: dict[int, str] | None = None):
    asked: list[int] = []

    def ask(text: str, number: int):
        asked.append(number)
        error = (errors or {}).get(number)
        return texts[min(number, len(texts)) - 1], 0.01, error

    return ask, asked


def test_a_refused_reply_is_asked_again_once():
    ask, asked = replies("no tags", "<description>Good one.</description>")
    proposal = Proposer(ask).propose("prompt")
    assert proposal.description == "Good one." and asked == [1, 2]
    assert proposal.rejected == ("the reply holds no <description>…</description>",)
    assert proposal.cost_usd == pytest.approx(0.02) and proposal.calls == 2


def test_two_refusals_give_no_description():
    ask, asked = replies("no tags", "<description>Old.</description>")
    proposal = Proposer(ask).propose("prompt", taken=["Old."])
    assert proposal.description is None and asked == [1, 2]
    assert proposal.rejected[1] == "the description was already tried"


def test_a_run_that_erred_counts_as_a_try():
    ask, _ = replies("<description>x</description>", "<description>Fine.</description>", errors={1: "api: down"})
    proposal = Proposer(ask).propose("prompt")
    assert proposal.description == "Fine." and proposal.errors == ("api: down",)


def test_scripted_replies_in_order_the_last_repeated(tmp_path):
    (tmp_path / "tune.scripted.yaml").write_text("proposer:\n  - first\n  - [{text: second}]\n")
    script = load_proposer_script(tmp_path)
    assert script.turns("without", 1)[0].blocks[0].text == "first"
    assert script.turns("without", 2)[0].blocks[0].text == "second"
    assert script.turns("without", 7)[0].blocks[0].text == "second"


def test_scripted_replies_missing_or_wrong(tmp_path):
    with pytest.raises(ProposerScriptError, match="tune.scripted.yaml does not exist"):
        load_proposer_script(tmp_path)
    (tmp_path / "tune.scripted.yaml").write_text("proposer: {}\n")
    with pytest.raises(ProposerScriptError, match="non-empty list"):
        load_proposer_script(tmp_path)
    (tmp_path / "tune.scripted.yaml").write_text("proposer:\n  - [{txt: x}]\n")
    with pytest.raises(ProposerScriptError, match=r"proposer\[0\]"):
        load_proposer_script(tmp_path)
