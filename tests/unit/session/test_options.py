"""Unit tests for the command-line options (pytest_plugin_eval.options): parsed by a real pytest parser with the
plugin's (and pytest-xdist's) options registered, then validated by parse_options."""

from __future__ import annotations

import pytest
import xdist.plugin
from _pytest.config.argparsing import Parser

from pytest_plugin_eval.engine.option_parse import check_combinations, eval_options_given, parse_options, with_ini
from pytest_plugin_eval.engine.option_values import OptionError
from pytest_plugin_eval.engine.options import OPTIONS, EvalOptions
from pytest_plugin_eval.session.addoption import add_options


def make_parser() -> Parser:
    parser = Parser(_ispytest=True)
    add_options(parser)
    xdist.plugin.pytest_addoption(parser)  # -n, as in a real session
    return parser


def namespace(*args: str):
    return make_parser().parse(list(args))


def options(*args: str) -> EvalOptions:
    return parse_options(namespace(*args))


def refused(*args: str) -> str:
    with pytest.raises(OptionError) as info:
        options(*args)
    return str(info.value)


# ---- defaults and values ------------------------------------------------------------------------------------


def test_defaults():
    assert options() == EvalOptions()
    opts = options()
    assert opts.threshold == 1.0
    assert (opts.runs, opts.concurrency, opts.max_cost_usd, opts.json_path, opts.ablation) == (None,) * 5
    assert (opts.mocks, opts.allow_tools, opts.case_globs, opts.tags) == ("record", (), (), ())
    assert (opts.trust_plugin, opts.scaffold, opts.scripted, opts.keep_temp) == (False, False, False, False)


def test_every_value_is_carried(tmp_path):
    claude = tmp_path / "claude"
    claude.write_text("#!/bin/sh\n")
    claude.chmod(0o755)
    opts = options(
        "--trust-plugin",
        "--json",
        "out.json",
        "--threshold",
        "0.5",
        "--runs",
        "4",
        "--model",
        "m",
        "--judge-model",
        "sonnet",
        "--ablation",
        "none",
        "--keep-temp",
        "--output-dir",
        "o",
        "--report",
        "r.html",
        "--max-cost-usd",
        "2.5",
        "--scaffold",
        "--mocks",
        "off",
        "--allow-real-servers",
        "--eval-dir",
        "qa/evals",
        "--claude",
        str(claude),
        "--scripted",
        "-j",
        "3",
        "--case",
        "a*",
        "--tag",
        "t",
        "--allow-tools",
        "Write",
        "--disallow-tools",
        "Agent",
    )
    assert opts == EvalOptions(
        trust_plugin=True,
        json_path="out.json",
        threshold=0.5,
        runs=4,
        model="m",
        judge_model="sonnet",
        ablation="none",
        allow_tools=("Write",),
        disallow_tools=("Agent",),
        case_globs=("a*",),
        tags=("t",),
        keep_temp=True,
        output_dir="o",
        report="r.html",
        max_cost_usd=2.5,
        scaffold=True,
        mocks="off",
        allow_real_servers=True,
        eval_dir="qa/evals",
        claude=str(claude),
        scripted=True,
        concurrency=3,
    )


@pytest.mark.parametrize("written,value", [("0", 0.0), ("1", 1.0), ("0.75", 0.75), ("1.0", 1.0), (".5", 0.5)])
def test_threshold_accepted(written, value):
    assert options("--threshold", written).threshold == value


@pytest.mark.parametrize("written", ["1.5", "-0.1", "2", "abc", "nan", "inf", "-inf", ""])
def test_threshold_refused(written):
    assert refused(f"--threshold={written}") == "Error: --threshold must be between 0 and 1"


@pytest.mark.parametrize("written,value", [("1", 1), ("3", 3), ("2.5", 2), ("2.99", 2), ("50", 50), ("1e2", 100)])
def test_runs_accepted_and_truncated(written, value):
    runs = options("--runs", written).runs
    assert runs == value and type(runs) is int


@pytest.mark.parametrize("written", ["0", "0.5", "-1", "abc", "nan", "inf", ""])
def test_runs_refused(written):
    assert refused("--runs", written) == "Error: --runs must be a whole number above 0"


@pytest.mark.parametrize("entry, meant", [("bash", "Bash"), ("Wrte", "Write"), ("Reed(src/**)", "Read")])
def test_a_misspelled_tool_grant_is_refused_with_a_did_you_mean(entry, meant):
    message = refused(f"--allow-tools={entry}")
    assert (
        message == f"Error: --allow-tools: refused entry: {entry!r} is no tool of Claude Code's — did you mean {meant}?"
    )


def test_a_grant_of_a_tool_newer_than_the_harness_is_accepted():
    assert options("--allow-tools=Frobnicate,mcp__srv__tool").allow_tools == ("Frobnicate", "mcp__srv__tool")


def test_runs_auto_is_carried_and_spares_the_fixed_count():
    parsed = options("--runs", "auto:12", "-n", "2", "--tx", "popen//python=python3")
    assert parsed.auto_runs is not None and parsed.auto_runs.most == 12 and parsed.runs is None


def test_runs_auto_refuses_a_worker_on_another_machine():
    message = refused("--runs", "auto", "--tx", "ssh=build@host//python=python3")
    assert "--tx ssh=build@host//python=python3 is not" in message and "fixed --runs N" in message


def test_fail_on_worse_needs_an_against_arm_given_or_regraded():
    assert "give --against REF with it" in refused("--fail-on-worse")
    check_combinations(namespace("--fail-on-worse", "--regrade", "evals/results/x"))  # the stored arm is read


@pytest.mark.parametrize("flag", ["-j", "--concurrency"])
@pytest.mark.parametrize("written,value", [("1", 1), ("4", 4), ("8", 8), ("4.0", 4)])
def test_concurrency_accepted(flag, written, value):
    concurrency = options(flag, written).concurrency
    assert concurrency == value and type(concurrency) is int


@pytest.mark.parametrize("written", ["9", "0", "-1", "2.5", "abc", "nan", "inf"])
def test_concurrency_refused(written):
    assert refused("--concurrency", written) == "Error: --concurrency must be a whole number from 1 to 8"


@pytest.mark.parametrize("written,value", [("0", 0.0), ("0.01", 0.01), ("10", 10.0)])
def test_max_cost_accepted(written, value):
    assert options("--max-cost-usd", written).max_cost_usd == value


@pytest.mark.parametrize("written", ["-1", "-0.01", "abc", "nan", "inf"])
def test_max_cost_refused(written):
    assert refused("--max-cost-usd", written) == "Error: --max-cost-usd must be a number, 0 or more"


@pytest.mark.parametrize("mode", ["none", "with-without"])
def test_ablation_accepted(mode):
    assert options("--ablation", mode).ablation == mode


@pytest.mark.parametrize("mode", ["bogus", "with", "None", ""])
def test_ablation_refused(mode):
    assert refused("--ablation", mode) == 'Error: --ablation must be "none" or "with-without"'


@pytest.mark.parametrize("mode", ["record", "off"])
def test_mocks_accepted(mode):
    assert options("--mocks", mode).mocks == mode


@pytest.mark.parametrize("mode", ["bogus", "replay", "OFF"])
def test_mocks_refused(mode):
    assert refused("--mocks", mode) == "Error: --mocks must be record or off"


def test_json_without_a_path_prints():
    assert options("--json").json_path == "-"


@pytest.mark.parametrize("path", ["out.json", "dir/sub/r.json", "/abs/r.json"])
def test_json_path_accepted(path):
    assert options("--json", path).json_path == path


@pytest.mark.parametrize("path", ["out.txt", "out.JSON", "out.json.bak", "out"])
def test_json_path_refused(path):
    assert refused("--json", path) == (
        f"Error: --json output path must end in .json (got '{path}'). Pass a path "
        f"such as results.json, or --json alone to print the document."
    )


@pytest.mark.parametrize("path", ["../x", "a/../../x", "..", "/abs/evals"])
def test_eval_dir_outside_the_plugin(path):
    assert refused("--eval-dir", path) == (
        "Error: --eval-dir must stay inside the plugin root (no .. and not absolute)"
    )


@pytest.mark.parametrize("path", ["skills/x", "skills", "./skills/evals"])
def test_eval_dir_inside_skills(path):
    assert refused("--eval-dir", path) == "Error: --eval-dir must not be inside the plugin's skills/ directory"


@pytest.mark.parametrize("path", ["evals", "qa/evals", "my-skills/evals", "tests/skills"])
def test_eval_dir_accepted(path):
    assert options("--eval-dir", path).eval_dir == path


@pytest.mark.parametrize(
    "entry,problem",
    [
        ("Monitor", "'Monitor' is never available in an evaluation (EnterWorktree, ExitWorktree, Monitor)"),
        (
            "Bash(",
            "'Bash(' is malformed — write a tool name, optionally with a pattern: Bash, Edit(src/**), "
            "mcp__server__tool",
        ),
    ],
)
def test_allow_tools_refused(entry, problem):
    assert refused("--allow-tools", entry) == f"Error: --allow-tools: refused entry: {problem}"


def test_allow_tools_refuses_a_bad_entry_among_good_ones():
    assert refused("--allow-tools", "Write", "EnterWorktree") == (
        "Error: --allow-tools: refused entry: 'EnterWorktree' is never available in an evaluation (EnterWorktree, "
        "ExitWorktree, Monitor)"
    )


@pytest.mark.parametrize("entry", ["Bogus", "Bash(rm:*)", "mcp__a__b"])
def test_disallow_tools_refused(entry):
    assert refused("--disallow-tools", entry) == (
        f'Error: --disallow-tools: "{entry}" cannot be disallowed: it is not a built-in tool that can be removed — '
        f"use bare names such as Agent or TaskStop (patterns such as Bash(rm:*) and MCP tools are not accepted). "
        f"No case was run."
    )


def test_claude_must_be_executable(tmp_path):
    missing = tmp_path / "nope"
    assert refused("--claude", str(missing)) == f"Error: --claude {missing}: no executable file there"
    plain = tmp_path / "plain"
    plain.write_text("")
    plain.chmod(0o644)  # no execute bit at all: not executable, even for root
    assert refused("--claude", str(plain)) == f"Error: --claude {plain}: no executable file there"


def test_case_is_repeatable():
    assert options("--case", "a*", "--case", "b?").case_globs == ("a*", "b?")


def test_tag_takes_several_values_and_repeats():
    assert options("--tag", "a", "b").tags == ("a", "b")
    assert options("--tag", "a", "--tag", "b", "c").tags == ("a", "b", "c")


def test_allow_and_disallow_tools_take_several_values():
    opts = options(
        "--allow-tools", "Write", "Bash(git status:*)", "mcp__srv__tool", "--disallow-tools", "Agent", "TaskStop"
    )
    assert opts.allow_tools == ("Write", "Bash(git status:*)", "mcp__srv__tool")
    assert opts.disallow_tools == ("Agent", "TaskStop")


def test_no_scaffold_after_scaffold():
    assert options("--scaffold", "--no-scaffold").scaffold is False
    assert options("--no-scaffold", "--scaffold").scaffold is True


def test_first_bad_option_is_reported_in_a_fixed_order():
    # --json is checked before --threshold, which is checked before --runs.
    assert refused("--runs", "0", "--threshold", "5", "--json", "x.txt").startswith("Error: --json ")
    assert refused("--runs", "0", "--threshold", "5") == "Error: --threshold must be between 0 and 1"


def test_eval_options_given():
    assert eval_options_given(namespace()) is False
    for args in (
        ["--trust-plugin"],
        ["--json"],
        ["--threshold", "0.5"],
        ["--runs", "2"],
        ["--case", "x"],
        ["--tag", "t"],
        ["--ablation", "none"],
        ["--scripted"],
    ):
        assert eval_options_given(namespace(*args)) is True, args
    assert eval_options_given(namespace("--keep-temp", "--model", "m")) is False


def test_the_options_that_mark_an_eval_session_are_marked_in_the_table():
    """One declaration: the table says which options make a run an eval session, eval_options_given reads it."""
    marked = {o.name for o in OPTIONS if o.marks_session}
    assert marked == {
        "--trust-plugin",
        "--json",
        "--threshold",
        "--runs",
        "--case",
        "--tag",
        "--ablation",
        "--scripted",
        "--regrade",
    }
    assert eval_options_given(namespace("--regrade", "evals/results/x")) is True


# ---- concurrency: runs at once in this process --------------------------------------------------------------


@pytest.mark.parametrize("args", [["-j", "4"], ["--concurrency", "4"], ["--concurrency=4"], ["-j4"], ["-j", "4.0"]])
def test_concurrency_is_read_in_every_spelling(args):
    assert options(*args).concurrency == 4


def test_concurrency_is_unset_by_default():
    assert options().concurrency is None


# ---- list options: comma-separated values, and paths they swallow ---------------------------------------------


@pytest.mark.parametrize(
    "args, tools",
    [
        (["--allow-tools", "Write,Edit"], ("Write", "Edit")),
        (["--allow-tools=Write,Edit"], ("Write", "Edit")),
        (["--allow-tools=Write,Bash(git commit:*)"], ("Write", "Bash(git commit:*)")),
        (["--allow-tools=Bash(git add:*,git commit:*),Write"], ("Bash(git add:*,git commit:*)", "Write")),
        (["--allow-tools=Write", "--allow-tools=Edit"], ("Write", "Edit")),
        (["--allow-tools", "Write, Edit,"], ("Write", "Edit")),
        (["--allow-tools", "Write", "Edit(src/**)", "mcp__srv__tool"], ("Write", "Edit(src/**)", "mcp__srv__tool")),
    ],
)
def test_allow_tools_takes_comma_separated_values(args, tools):
    assert options(*args).allow_tools == tools


def test_disallow_tools_and_tags_take_comma_separated_values():
    opts = options("--disallow-tools=Agent,TaskStop", "--tag", "smoke,nightly", "--tag=slow")
    assert opts.disallow_tools == ("Agent", "TaskStop")
    assert opts.tags == ("smoke", "nightly", "slow")


def test_an_equals_value_leaves_the_path_to_pytest():
    namespace_ = make_parser().parse(["--allow-tools=Write", "evals/"])
    assert namespace_.eval_allow_tools == ["Write"]
    assert parse_options(namespace_).allow_tools == ("Write",)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--allow-tools", "Write", "evals/"],
            'Error: --allow-tools: "evals/" looks like a path that the option swallowed (--allow-tools takes one or '
            "more values, up to the next option) — write --allow-tools=Write (or put paths first)",
        ),
        (
            ["--allow-tools", "Write", "Edit", "evals/my-case/prompt.md::my-case"],
            'Error: --allow-tools: "evals/my-case/prompt.md::my-case" looks like a path that the option swallowed '
            "(--allow-tools takes one or more values, up to the next option) — write --allow-tools=Write,Edit (or put "
            "paths first)",
        ),
        (
            ["--disallow-tools", "Agent", "tests/"],
            'Error: --disallow-tools: "tests/" looks like a path that the option swallowed (--disallow-tools takes one '
            "or more values, up to the next option) — write --disallow-tools=Agent (or put paths first)",
        ),
        (
            ["--tag", "smoke", "evals/"],
            'Error: --tag: "evals/" looks like a path that the option swallowed (--tag takes one or more values, up to '
            "the next option) — write --tag=smoke (or put paths first)",
        ),
    ],
)
def test_a_swallowed_path_is_refused_with_how_to_write_it(args, message):
    assert refused(*args) == message


def test_an_existing_folder_without_a_slash_is_a_swallowed_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evals").mkdir()
    (tmp_path / "Edit").mkdir()  # a tool's name is a tool, whatever the folder holds
    assert "looks like a path" in refused("--allow-tools", "Write", "evals")
    assert "looks like a path" in refused("--tag", "smoke", "evals")
    assert options("--allow-tools", "Write", "Edit").allow_tools == ("Write", "Edit")
    # a value given on its own is what was meant, even when a folder has its name
    assert options("--tag", "evals").tags == ("evals",)
    assert options("--tag=smoke", "--tag=evals").tags == ("smoke", "evals")
    assert options("--tag", "smoke,evals").tags == ("smoke", "evals")


def test_a_refused_entry_in_the_comma_form_keeps_the_reference_message():
    assert refused("--allow-tools=Write,Monitor") == (
        "Error: --allow-tools: refused entry: 'Monitor' is never available in an evaluation (EnterWorktree, "
        "ExitWorktree, Monitor)"
    )
    assert refused("--disallow-tools=Agent,Bogus").startswith('Error: --disallow-tools: "Bogus" cannot be disallowed')


def test_shard_is_k_of_n():
    from pytest_plugin_eval.engine.option_values import OptionError, parse_shard

    assert parse_shard("2/4") == (2, 4) and parse_shard(None) is None
    for bad in ("0/2", "3/2", "1", "a/b", "1/0"):
        with pytest.raises(OptionError, match="--shard must be K/N"):
            parse_shard(bad)


# ---- --model A,B: the model matrix -----------------------------------------------------------------------------


def test_one_model_is_todays_option_and_a_list_is_a_matrix():
    assert (options("--model", "sonnet").model, options("--model", "sonnet").models) == ("sonnet", ())
    matrix = options("--model", "haiku, sonnet,haiku")
    assert (matrix.model, matrix.models, matrix.matrix) == (None, ("haiku", "sonnet"), True)
    assert options("--model", "haiku,haiku").models == ()  # one model named twice is one model
    assert matrix.for_model("haiku") == EvalOptions(model="haiku")
    assert options("--model", "x").for_model(None) == EvalOptions(model="x")


def test_a_matrix_refuses_empty_names_and_regrade():
    assert "an empty model name" in refused("--model", "haiku,,sonnet")
    assert "--regrade makes no runs" in refused("--model", "haiku,sonnet", "--regrade", "/nonexistent")


def test_a_matrix_takes_reuse_of_the_baseline_matched_per_model():
    assert options("--model", "a,b", "--reuse-baseline").reuse_baseline is True
    assert options("--model", "a", "--reuse-baseline").reuse_baseline is True


class IniConfig:
    """The little of pytest.Config `with_ini` reads: the options and the ini settings."""

    def __init__(self, option, ini: dict):
        self.option, self.ini = option, ini

    def getini(self, name: str):
        return self.ini.get(name, False)


def test_strict_tools_from_the_command_line_or_the_ini():
    assert options().strict_tools is False
    assert options("--strict-tools").strict_tools is True
    plain = namespace()
    assert with_ini(parse_options(plain), IniConfig(plain, {"eval_strict_tools": True})).strict_tools is True
    assert with_ini(parse_options(plain), IniConfig(plain, {})).strict_tools is False
