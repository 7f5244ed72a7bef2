"""Unit tests for eval case loading and validation (pytest_plugin_eval.case).

Every suite is built in tmp_path: `plugin/.claude-plugin/plugin.json`, `plugin/skills/s/SKILL.md` and
`plugin/evals/<case>/…`. Problems are asserted through `Problem.render(plugin_root)`, which is exactly what the
user sees: the file (relative to the plugin), the key, and the message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.plugin import REGEX_OK, Suite

from pytest_plugin_eval.grade.types import grader_types
from pytest_plugin_eval.load.case import (
    DEFAULT_MAX_TURNS,
    DEFAULT_RUNS,
    DEFAULT_TIMEOUT,
    PROMPT_CAP,
    CaseLoadError,
    Context,
    Problem,
    env_key_problem,
    find_case_dirs,
    is_case_dir,
    load_case,
)

KINDS_BAR = "regex | tool_order | tool_used | file_exists | llm | baseline | python | budget"
KINDS_COMMA = "regex, tool_order, tool_used, file_exists, llm, baseline, python, budget"
FM_KEYS = (
    "schema_version, name, description, tags, plugins, runs, expected_outcome, models, model, max_turns, "
    "timeout_seconds, allowed_tools, disallowed_tools, artifact_publish, growthbook_overrides, "
    "append_system_prompt, env, turns, answers, user"
)
TOP_KEYS = (
    "schema_version, name, description, tags, plugins, runs, expected_outcome, models, context, execution, graders"
)
EXEC_KEYS = (
    "model, max_turns, timeout_seconds, allowed_tools, disallowed_tools, artifact_publish, "
    "growthbook_overrides, append_system_prompt, env, turns, answers, user, prompt"
)
CTX_KEYS = "scaffold_script, history_file, add_dirs, files"
REGEX_KEYS = "type, name, weight, arm, turn, pattern, target, match, flags"
NO_GRADERS = (
    "graders: the case has no graders — add graders/<name>.md files (each with a `type:` frontmatter), "
    "or a graders: list in case.yaml"
)
EMPTY_PROMPT = "is empty — write the user prompt to test as the prompt.md body (or execution.prompt in case.yaml)"


# ---- a valid prompt.md case --------------------------------------------------------------------------------


def test_minimal_case_has_the_defaults(suite):
    folder = suite.case()
    case = suite.load()
    assert case.name == "c"
    assert case.dir == folder
    assert case.eval_root == suite.evals
    assert case.plugin_root == suite.plugin
    assert case.plugin_dirs == (suite.plugin,)
    assert case.source == "prose"
    assert case.prompt == "Say hello."
    assert case.runs is None
    assert case.runs_per_arm == DEFAULT_RUNS == 3
    assert case.max_turns == DEFAULT_MAX_TURNS == 10
    assert case.timeout_seconds == DEFAULT_TIMEOUT == 300
    assert case.model is None
    assert case.allowed_tools == ()
    assert case.disallowed_tools == ()
    assert case.append_system_prompt is None
    assert case.env == ()
    assert case.tags == ()
    assert case.plugins == ()
    assert case.description is None
    assert case.expected_outcome is None
    assert case.context == Context()
    assert case.warnings == ()
    assert case.rel_dir == "evals/c"
    assert case.prompt_file == folder / "prompt.md"
    (grader,) = case.graders
    assert (grader.name, grader.type, grader.weight, grader.arm, grader.body) == ("ok", "regex", 1, None, None)
    assert grader.config.pattern == "hello"
    assert grader.source == str(folder / "graders" / "ok.md")


def test_every_frontmatter_key_is_read(suite):
    suite.case(
        fm="\n".join(
            [
                'schema_version: "1.7"',
                "name: custom-name",
                "description: What it checks",
                "tags: [smoke, fast]",
                "runs: 5",
                "expected_outcome: A greeting",
                "model: claude-test-model",
                "max_turns: 200",
                "timeout_seconds: 3600",
                "allowed_tools: [Read, Grep]",
                "disallowed_tools: [Agent, TaskStop]",
                "artifact_publish: false",
                "growthbook_overrides: {flag: 1}",
                "append_system_prompt: Be brief.",
                "env: {EVAL_OK_1: one, EVAL_B: two}",
            ]
        )
    )
    case = suite.load()
    assert case.name == "custom-name"
    assert case.description == "What it checks"
    assert case.tags == ("smoke", "fast")
    assert case.runs == 5 and case.runs_per_arm == 5
    assert case.expected_outcome == "A greeting"
    assert case.model == "claude-test-model"
    assert case.max_turns == 200
    assert case.timeout_seconds == 3600
    assert case.allowed_tools == ("Read", "Grep")
    assert case.disallowed_tools == ("Agent", "TaskStop")
    assert case.append_system_prompt == "Be brief."
    assert case.env == (("EVAL_OK_1", "one"), ("EVAL_B", "two"))
    assert case.rel_dir == "evals/c"


@pytest.mark.parametrize(
    "key,value",
    [
        ("runs", 1),
        ("runs", 50),
        ("max_turns", 1),
        ("max_turns", 200),
        ("timeout_seconds", 1),
        ("timeout_seconds", 3600),
    ],
)
def test_integer_bounds_are_inclusive(suite, key, value):
    suite.case(fm=f"{key}: {value}")
    assert getattr(suite.load(), key) == value


@pytest.mark.parametrize("key", ["runs", "max_turns", "timeout_seconds"])
def test_a_whole_float_is_accepted_as_an_int(suite, key):
    suite.case(fm=f"{key}: 2.0")
    value = getattr(suite.load(), key)
    assert value == 2 and type(value) is int


@pytest.mark.parametrize("key,low,high", [("runs", 1, 50), ("max_turns", 1, 200), ("timeout_seconds", 1, 3600)])
@pytest.mark.parametrize(
    "written,got",
    [
        ("LOW-1", "LOW-1"),
        ("HIGH+1", "HIGH+1"),
        ("1.5", "a number 1.5"),
        ("'3'", "a string '3'"),
        ("three", "a string 'three'"),
        ("true", "a boolean"),
        ("false", "a boolean"),
        ("[1]", "a list"),
        ("null", "nothing (null)"),
    ],
)
def test_integer_fields_refuse_out_of_range_and_non_integers(suite, key, low, high, written, got):
    def fill(text: str) -> str:
        return text.replace("LOW-1", str(low - 1)).replace("HIGH+1", str(high + 1))

    suite.case(fm=f"{key}: {fill(written)}")
    error = suite.fail()
    assert suite.rendered(error) == [
        f"evals/c/prompt.md: {key}: must be a whole number from {low} to {high} (got {fill(got)})"
    ]
    assert error.name == "c"
    assert error.values_only is True  # a bad value: --case/--tag decide whether it is reported


def test_unknown_frontmatter_key(suite):
    suite.case(fm="colour: red\nruns: 2")
    assert suite.problems() == [f"evals/c/prompt.md: colour: is not a frontmatter key (expected one of: {FM_KEYS})"]


@pytest.mark.parametrize("key", ["prompt", "context", "graders", "execution", "scaffold_script"])
def test_case_yaml_only_keys_are_not_frontmatter_keys(suite, key):
    suite.case(fm=f"{key}: x")
    assert suite.problems() == [f"evals/c/prompt.md: {key}: is not a frontmatter key (expected one of: {FM_KEYS})"]


def test_allowed_tools_as_a_string(suite):
    suite.case(fm="allowed_tools: Read")
    assert suite.problems() == [
        "evals/c/prompt.md: allowed_tools: must be a list of strings (got a string) — write it as a list: [Read]"
    ]


def test_allowed_tools_with_a_non_string_item(suite):
    suite.case(fm="allowed_tools: [Read, 5]")
    assert suite.problems() == ["evals/c/prompt.md: allowed_tools[1]: must be a string (got a whole number)"]


@pytest.mark.parametrize(
    "items,index,entry",
    [
        ("[Bogus]", 0, "Bogus"),
        ("[Agent, 'Read(//etc/**)']", 1, "Read(//etc/**)"),
        ("[mcp__srv__tool]", 0, "mcp__srv__tool"),
    ],
)
def test_disallowed_tools_refuses_non_removable_entries(suite, items, index, entry):
    suite.case(fm=f"disallowed_tools: {items}")
    assert suite.problems() == [
        f'evals/c/prompt.md: disallowed_tools[{index}]: "{entry}" cannot be disallowed: it is not a built-in tool '
        f"that can be removed — use bare names such as Agent or TaskStop (patterns such as Bash(rm:*) and MCP "
        f"tools are not accepted)"
    ]


def test_disallowed_tools_accepts_builtin_names(suite):
    suite.case(fm="disallowed_tools: [Agent, Bash, WebSearch]")
    assert suite.load().disallowed_tools == ("Agent", "Bash", "WebSearch")


def test_disallowed_tools_as_a_string(suite):
    suite.case(fm="disallowed_tools: Agent")
    assert suite.problems() == [
        "evals/c/prompt.md: disallowed_tools: must be a list of strings (got a string) — write it as a list: [Agent]"
    ]


@pytest.mark.parametrize("key", ["model", "description", "expected_outcome", "append_system_prompt"])
def test_string_fields_refuse_numbers(suite, key):
    suite.case(fm=f"{key}: 4.5")
    assert suite.problems() == [f"evals/c/prompt.md: {key}: must be a string (got a number)"]


def test_artifact_publish_and_growthbook_overrides_types(suite):
    suite.case(fm="artifact_publish: 'yes'\ngrowthbook_overrides: [a]")
    assert suite.problems() == [
        "evals/c/prompt.md: artifact_publish: must be true or false (got a string)",
        "evals/c/prompt.md: growthbook_overrides: must be a mapping (got a list)",
    ]


def test_yes_is_a_string_not_a_boolean(suite):
    # YAML 1.2 scalars: `yes` is the string "yes", as the reference tool reads it.
    suite.case(fm="artifact_publish: yes")
    assert suite.problems() == ["evals/c/prompt.md: artifact_publish: must be true or false (got a string)"]


def test_env_not_a_mapping(suite):
    suite.case(fm="env: [EVAL_A]")
    assert suite.problems() == ["evals/c/prompt.md: env: must be a mapping of EVAL_* names to strings (got a list)"]


def test_env_non_string_value(suite):
    suite.case(fm="env: {EVAL_PORT: 8080}")
    assert suite.problems() == [
        'evals/c/prompt.md: env.EVAL_PORT: must be a string (got a whole number) — quote it: "8080"'
    ]


@pytest.mark.parametrize("name", ["FOO", "EVAL_lower", "eval_X", "PATH", "XEVAL_A", "EVAL-A"])
def test_env_refuses_non_eval_names(suite, name):
    suite.case(fm=f"env: {{{name}: x}}")
    [problem] = suite.problems()
    assert problem.startswith(
        f"evals/c/prompt.md: env.{name}: only EVAL_* variables (upper case: ^EVAL_[A-Z0-9_]*$) can be set from a "
        "case; and your shell's own variables never reach the run either (its hooks and MCP servers included)"
    )
    assert "must come from the operator's shell" not in problem  # it cannot: issue 34 item 20


def test_a_refused_env_name_says_how_a_plugin_gets_its_token(suite):
    suite.case(fm="env: {GITHUB_TOKEN: x}")
    [problem] = suite.problems()
    assert problem.endswith(
        "only EVAL_* ones and the allow-list Claude Code needs — name it EVAL_GITHUB_TOKEN (here, or exported in your "
        'shell) and have the plugin read that (an MCP server\'s config can pass it on: "GITHUB_TOKEN": '
        '"${EVAL_GITHUB_TOKEN}")'
    )


def test_env_accepts_upper_case_eval_names(suite):
    suite.case(fm="env: {EVAL_OK_1: 'a b', EVAL_2: '2'}")
    assert suite.load().env == (("EVAL_OK_1", "a b"), ("EVAL_2", "2"))


def test_tags_as_a_string(suite):
    suite.case(fm="tags: smoke")
    assert suite.problems() == [
        "evals/c/prompt.md: tags: must be a list of strings (got a string) — write it as a list: [smoke]"
    ]


@pytest.mark.parametrize(
    "written,got",
    [("''", "an empty string"), ("'   '", "an empty string"), ("5", "a whole number"), ("null", "nothing (null)")],
)
def test_name_must_be_a_non_empty_string(suite, written, got):
    suite.case(fm=f"name: {written}")
    error = suite.fail()
    assert suite.rendered(error) == [f"evals/c/prompt.md: name: must be a non-empty string (got {got})"]
    assert error.name == "c"  # the folder name stands in for the broken one


def test_name_from_frontmatter_else_the_folder(suite):
    suite.case("named", fm="name: my-case")
    suite.case("unnamed")
    assert suite.load("named").name == "my-case"
    assert suite.load("unnamed").name == "unnamed"


@pytest.mark.parametrize(
    "written,message",
    [
        ('"2.0"', '"2.0" needs a newer case format than this tool reads (up to 1.x)'),
        ('"10"', '"10" needs a newer case format than this tool reads (up to 1.x)'),
        ('"abc"', '"abc" is not a version string such as "1.0"'),
        ('"1.x"', '"1.x" is not a version string such as "1.0"'),
        ('""', '"" is not a version string such as "1.0"'),
        ("2.0", 'must be a quoted version string such as "1.0" (got a number)'),
        ("1.0", 'must be a quoted version string such as "1.0" (got a number)'),
        ("1", 'must be a quoted version string such as "1.0" (got a whole number)'),
    ],
)
def test_schema_version_refused(suite, written, message):
    suite.case(fm=f"schema_version: {written}")
    assert suite.problems() == [f"evals/c/prompt.md: schema_version: {message}"]


@pytest.mark.parametrize("written", ['"1.7"', '"1"', '"1.0.3"', '"0.9"'])
def test_schema_version_accepted(suite, written):
    suite.case(fm=f"schema_version: {written}")
    assert suite.load().name == "c"


# ---- prompt.md as a file ----------------------------------------------------------------------------------


def test_malformed_yaml_frontmatter(suite):
    suite.case(fm="runs: [1, 2\nmodel: x")
    error = suite.fail()
    (line,) = suite.rendered(error)
    assert line.startswith("evals/c/prompt.md: invalid YAML frontmatter: line ")
    assert error.problems[0].key == ""
    assert error.name is None and error.values_only is False


def test_unterminated_frontmatter(suite):
    folder = suite.case(graders={"ok": REGEX_OK})
    (folder / "prompt.md").write_text("---\nruns: 3\nSay hello.\n")
    error = suite.fail()
    assert suite.rendered(error) == [
        'evals/c/prompt.md: unterminated frontmatter (an opening "---" line with no closing "---" line)'
    ]
    assert error.name is None


def test_frontmatter_that_is_a_list(suite):
    suite.case(fm="- runs\n- 3")
    assert suite.problems() == ["evals/c/prompt.md: the frontmatter must be a YAML mapping of keys to values"]


def test_empty_frontmatter_block_is_allowed(suite):
    folder = suite.case()
    (folder / "prompt.md").write_text("---\n---\nSay hello.\n")
    assert suite.load().prompt == "Say hello."


def test_byte_order_mark_and_crlf_are_read(suite):
    folder = suite.case()
    (folder / "prompt.md").write_bytes("\ufeff---\r\nruns: 2\r\n---\r\nSay hello.\r\n".encode("utf-8"))
    case = suite.load()
    assert (case.runs, case.prompt) == (2, "Say hello.")


@pytest.mark.parametrize("body", ["", "   \n\n\t"])
def test_empty_body(suite, body):
    suite.case(fm="runs: 2", body=body)
    assert suite.problems() == [f"evals/c/prompt.md: prompt: {EMPTY_PROMPT}"]


def test_prompt_without_frontmatter_is_the_whole_file(suite):
    suite.case(body="\n  Line one.\n\nLine two.  \n")
    assert suite.load().prompt == "Line one.\n\nLine two."


def test_init_template_body(suite):
    suite.case(body="TODO: describe what the agent should do")
    assert suite.problems() == [
        "evals/c/prompt.md: prompt: is still the blank `init` template — replace the "
        '"TODO: describe what the agent should do" line with the user prompt to test'
    ]


def test_prompt_over_one_mebibyte(suite):
    folder = suite.case()
    (folder / "prompt.md").write_bytes(b"a" * (PROMPT_CAP + 1))
    error = suite.fail()
    assert suite.rendered(error) == ["evals/c/prompt.md: is 1048577 bytes; the cap is 1048576 (1 MiB)"]
    assert error.name is None


def test_prompt_of_exactly_one_mebibyte_loads(suite):
    folder = suite.case()
    (folder / "prompt.md").write_bytes(b"a" * PROMPT_CAP)
    assert len(suite.load().prompt) == PROMPT_CAP


def test_prompt_that_is_not_utf8(suite):
    folder = suite.case()
    (folder / "prompt.md").write_bytes(b"Say \xff hello")
    (line,) = suite.problems()
    assert line.startswith("evals/c/prompt.md: cannot be read: ")


# ---- the graders folder -------------------------------------------------------------------------------------


def test_no_graders_folder(suite):
    suite.case(graders=None)
    error = suite.fail()
    assert suite.rendered(error) == [f"evals/c: {NO_GRADERS}"]
    assert error.problems[0] == Problem(suite.evals / "c", "graders", error.problems[0].message)
    assert error.values_only is True


def test_empty_graders_folder(suite):
    suite.case(graders={})
    assert suite.problems() == [f"evals/c: {NO_GRADERS}"]


def test_graders_is_a_file(suite):
    folder = suite.case(graders=None)
    (folder / "graders").write_text("type: regex\n")
    error = suite.fail()
    assert suite.rendered(error) == ["evals/c/graders: is not a folder — graders go in graders/<name>.md"]
    assert error.values_only is False


def test_only_a_grader_without_frontmatter_means_no_graders(suite):
    suite.case(graders={"notes": "Just some notes.\n"})
    assert suite.problems() == [f"evals/c: {NO_GRADERS}"]


def test_a_grader_without_frontmatter_next_to_a_valid_one_is_a_warning(suite, monkeypatch):
    monkeypatch.chdir(suite.plugin)
    suite.case(graders={"notes": "Just some notes.\n", "ok": REGEX_OK})
    case = suite.load()
    assert [g.name for g in case.graders] == ["ok"]
    assert case.warnings == (
        "evals/c/graders/notes.md has no frontmatter (a `---` block with `type:`), so it is "
        "not a grader and is ignored",
    )


def test_an_empty_grader_file_alone_means_no_graders(suite):
    suite.case(graders={"empty": ""})
    assert suite.problems() == [f"evals/c: {NO_GRADERS}"]


def test_an_empty_grader_file_next_to_a_valid_one_is_a_warning(suite, monkeypatch):
    monkeypatch.chdir(suite.plugin)
    suite.case(graders={"empty": "", "ok": REGEX_OK})
    assert suite.load().warnings == (
        "evals/c/graders/empty.md has no frontmatter (a `---` block with `type:`), "
        "so it is not a grader and is ignored",
    )


def test_empty_frontmatter_grader_needs_a_type(suite):
    suite.case(graders={"g": "---\n---\n"})
    error = suite.fail()
    assert suite.rendered(error) == [f"evals/c/graders/g.md: type: is required ({KINDS_BAR})"]
    assert error.values_only is False


def test_grader_missing_type(suite):
    suite.case(graders={"g": "---\npattern: hello\n---\n"})
    error = suite.fail()
    assert suite.rendered(error) == [f"evals/c/graders/g.md: type: is required ({KINDS_BAR})"]
    assert error.problems[0].structural is True
    assert error.values_only is False


def test_grader_unknown_type(suite):
    suite.case(graders={"g": "---\ntype: regexp\npattern: x\n---\n"})
    error = suite.fail()
    assert suite.rendered(error) == [
        f"evals/c/graders/g.md: type: 'regexp' is not a grader type (expected one of: {KINDS_COMMA})"
    ]
    assert error.values_only is True


def test_grader_unknown_key(suite):
    suite.case(graders={"g": "---\ntype: regex\npattern: x\ncolour: red\n---\n"})
    error = suite.fail()
    assert suite.rendered(error) == [
        f"evals/c/graders/g.md: colour: is not a key of regex graders (expected: {REGEX_KEYS})"
    ]
    assert error.problems[0].structural is False
    assert error.values_only is True


@pytest.mark.parametrize(
    "written,shown",
    [
        ("0", "0"),
        ("-1", "-1"),
        ("heavy", "a string 'heavy'"),
        ("true", "a boolean"),
        ("-0.5", "-0.5"),
        ("null", "nothing (null)"),
        (".inf", "inf"),
    ],
)
def test_grader_weight_must_be_positive(suite, written, shown):
    suite.case(graders={"g": f"---\ntype: regex\npattern: x\nweight: {written}\n---\n"})
    error = suite.fail()
    assert suite.rendered(error) == [f"evals/c/graders/g.md: weight: must be a number greater than 0 (got {shown})"]
    assert error.values_only is True


def test_grader_weight_nan_is_refused(suite):
    suite.case(graders={"g": "---\ntype: regex\npattern: x\nweight: .nan\n---\n"})
    assert suite.problems() == ["evals/c/graders/g.md: weight: must be a number greater than 0 (got nan)"]


@pytest.mark.parametrize("written,value", [("0.5", 0.5), ("3", 3)])
def test_grader_weight_accepted(suite, written, value):
    suite.case(graders={"g": f"---\ntype: regex\npattern: x\nweight: {written}\n---\n"})
    assert suite.load().graders[0].weight == value


def test_grader_bad_arm(suite):
    suite.case(graders={"g": "---\ntype: regex\npattern: x\narm: without\n---\n"})
    error = suite.fail()
    assert suite.rendered(error) == ["evals/c/graders/g.md: arm: must be one of with-only, both (got 'without')"]
    assert error.values_only is True


@pytest.mark.parametrize("arm", ["with-only", "both"])
def test_grader_arm_accepted(suite, arm):
    suite.case(graders={"g": f"---\ntype: regex\npattern: x\narm: {arm}\n---\n"})
    assert suite.load().graders[0].arm == arm


def test_llm_grader_with_an_empty_body(suite):
    suite.case(graders={"judge": "---\ntype: llm\n---\n\n  \n"})
    error = suite.fail()
    assert suite.rendered(error) == [
        "evals/c/graders/judge.md: criteria: is empty — write the rubric (what a "
        "passing run looks like) as the file's body"
    ]
    assert error.values_only is True


def test_llm_grader_body_is_its_criteria(suite):
    suite.case(graders={"judge": "---\ntype: llm\nfocus: trace\n---\n\nThe reply is polite.\n\n"})
    (spec,) = suite.load().graders
    assert (spec.type, spec.body, spec.config.criteria, spec.config.focus) == (
        "llm",
        "The reply is polite.",
        "The reply is polite.",
        "trace",
    )


def test_blank_grader_template(suite):
    suite.case(graders={"judge": "---\ntype: llm\n---\nTODO: describe what a successful response looks like\n"})
    error = suite.fail()
    assert suite.rendered(error) == [
        'evals/c/graders/judge.md: grader "judge" is still the blank `init` template — '
        'replace the "TODO: describe what a successful response looks like" line with '
        "concrete pass criteria"
    ]
    assert error.problems[0].key == ""
    assert error.values_only is True


def test_duplicate_grader_names(suite):
    suite.case(
        graders={
            "a": "---\ntype: regex\nname: same\npattern: x\n---\n",
            "b": "---\ntype: regex\nname: same\npattern: y\n---\n",
        }
    )
    error = suite.fail()
    assert suite.rendered(error) == [
        'evals/c/graders/b.md: name: another grader is already named "same"; grader names must be unique'
    ]


def test_grader_name_key_overrides_the_file_name(suite):
    suite.case(graders={"file-name": "---\ntype: regex\nname: display-name\npattern: x\n---\n"})
    assert [g.name for g in suite.load().graders] == ["display-name"]


def test_grader_name_must_be_a_non_empty_string(suite):
    suite.case(graders={"g": "---\ntype: regex\nname: 5\npattern: x\n---\n"})
    assert suite.problems() == ["evals/c/graders/g.md: name: must be a non-empty string (got a whole number)"]


def test_grader_with_malformed_frontmatter(suite):
    suite.case(graders={"g": "---\ntype: [regex\n---\n"})
    (line,) = suite.problems()
    assert line.startswith("evals/c/graders/g.md: invalid frontmatter: line ")


def test_grader_with_an_invalid_regex(suite):
    suite.case(graders={"g": "---\ntype: regex\npattern: '(?P<x>a)'\n---\n"})
    error = suite.fail()
    (line,) = suite.rendered(error)
    assert line.startswith("evals/c/graders/g.md: pattern: invalid regular expression /(?P<x>a)/: ")
    assert line.endswith(" — JavaScript names groups (?<name>...), without the P")
    assert error.values_only is True


def test_several_problems_are_all_reported(suite):
    suite.case(
        fm="runs: 0\ncolour: red\nmodel: 5",
        body="",
        graders={"a": "---\ntype: regex\npattern: x\nweight: 0\n---\n", "b": "---\ntype: nope\n---\n"},
    )
    assert suite.problems() == [
        f"evals/c/prompt.md: colour: is not a frontmatter key (expected one of: {FM_KEYS})",
        "evals/c/prompt.md: runs: must be a whole number from 1 to 50 (got 0)",
        "evals/c/prompt.md: model: must be a string (got a whole number)",
        f"evals/c/prompt.md: prompt: {EMPTY_PROMPT}",
        "evals/c/graders/a.md: weight: must be a number greater than 0 (got 0)",
        f"evals/c/graders/b.md: type: 'nope' is not a grader type (expected one of: {KINDS_COMMA})",
    ]


def test_str_of_the_error_lists_every_problem_relative_to_cwd(suite, monkeypatch):
    monkeypatch.chdir(suite.plugin)
    suite.case(fm="runs: 0\nmax_turns: 0")
    assert str(suite.fail()) == (
        "evals/c/prompt.md: runs: must be a whole number from 1 to 50 (got 0)\n"
        "evals/c/prompt.md: max_turns: must be a whole number from 1 to 200 (got 0)"
    )


# ---- values_only -----------------------------------------------------------------------------------------


def test_values_only_carries_the_name_and_tags(suite):
    suite.case(
        fm="name: the-name\ntags: [t1, t2]",
        graders={
            "a": "---\ntype: regex\npattern: x\nweight: 0\n---\n",
            "b": "---\ntype: regex\npattern: x\narm: nope\n---\n",
        },
    )
    error = suite.fail()
    assert error.values_only is True
    assert (error.name, error.tags) == ("the-name", ("t1", "t2"))
    assert error.case_dir == suite.evals / "c"


def test_values_only_is_false_with_a_missing_type_among_grader_problems(suite):
    suite.case(graders={"a": "---\ntype: regex\npattern: x\nweight: 0\n---\n", "b": "---\npattern: x\n---\n"})
    error = suite.fail()
    assert [p.structural for p in error.problems] == [False, True]
    assert error.values_only is False


def test_values_only_holds_for_bad_values_anywhere_in_a_readable_case(suite):
    suite.case(fm="runs: 0", graders={"a": "---\ntype: regex\npattern: x\nweight: 0\n---\n"})
    error = suite.fail()
    assert error.name == "c"
    assert error.values_only is True


def test_values_only_is_false_once_a_file_cannot_be_read_as_a_case(suite):
    suite.case(fm="runs: 0\ncolour: red")
    error = suite.fail()
    assert error.values_only is False


def test_values_only_needs_the_name(suite):
    error = CaseLoadError(Path("/x"), [Problem(Path("/x/g.md"), "weight", "bad")])
    assert error.values_only is False
    named = CaseLoadError(Path("/x"), [Problem(Path("/x/g.md"), "weight", "bad")], name="x")
    assert named.values_only is True


# ---- grader files: order and what is ignored --------------------------------------------------------------


def test_grader_files_are_in_code_unit_order(suite):
    names = ["é-accent", "a-lower", "_under", "Z-upper", "B-upper", "9-nine", "10-ten", "-dash"]
    suite.case(graders={n: f"---\ntype: regex\npattern: p{i}\n---\n" for i, n in enumerate(names)})
    assert [g.name for g in suite.load().graders] == [
        "-dash",
        "10-ten",
        "9-nine",
        "B-upper",
        "Z-upper",
        "_under",
        "a-lower",
        "é-accent",
    ]


def test_grader_order_is_by_utf16_code_units_not_code_points(suite):
    # U+1F600 is the surrogate pair D83D DE00 in UTF-16, so it sorts before U+FF5E (as JavaScript sorts).
    suite.case(
        graders={"\uff5e": "---\ntype: regex\npattern: a\n---\n", "\U0001f600": "---\ntype: regex\npattern: b\n---\n"}
    )
    assert [g.name for g in suite.load().graders] == ["\U0001f600", "\uff5e"]


def test_a_grader_file_name_that_is_not_utf8_still_loads(suite):
    folder = suite.case(graders={"ok": REGEX_OK})
    (folder / "graders" / os.fsdecode(b"caf\xe9.md")).write_bytes(b"---\ntype: regex\npattern: b\n---\n")
    assert [g.name for g in suite.load().graders] == [os.fsdecode(b"caf\xe9"), "ok"]


def test_non_md_files_and_subfolders_in_graders_are_ignored(suite):
    folder = suite.case(graders={"ok": REGEX_OK})
    (folder / "graders" / "notes.txt").write_text("---\ntype: nope\n---\n")
    (folder / "graders" / "README").write_text("---\ntype: nope\n---\n")
    (folder / "graders" / "sub").mkdir()
    (folder / "graders" / "sub" / "nested.md").write_text("---\ntype: nope\n---\n")
    (folder / "graders" / "folder.md").mkdir()
    case = suite.load()
    assert [g.name for g in case.graders] == ["ok"]
    assert case.warnings == ()


def test_regex_pattern_from_the_body(suite):
    suite.case(graders={"g": "---\ntype: regex\nflags: i\n---\n\n^Hello\\b\n\n"})
    (spec,) = suite.load().graders
    assert (spec.config.pattern, spec.config.flags, spec.config.match, spec.config.target) == (
        "^Hello\\b",
        "i",
        "contains",
        "last_message",
    )
    assert spec.body is None


def test_regex_needs_a_pattern(suite):
    suite.case(graders={"g": "---\ntype: regex\n---\n"})
    assert suite.problems() == [
        "evals/c/graders/g.md: pattern: is required (a `pattern:` key, or the pattern as the file's body)"
    ]


# ---- case.yaml --------------------------------------------------------------------------------------------

YAML_CASE = """\
schema_version: "1.0"
name: yaml-case
description: From YAML
tags: [y]
runs: 4
execution:
  prompt: Do the thing.
  max_turns: 6
  timeout_seconds: 90
  model: yaml-model
  env: {EVAL_A: a}
graders:
  - name: has-thing
    type: regex
    pattern: thing
    weight: 2
  - name: judge
    type: llm
    criteria: It did the thing.
"""


def test_case_yaml_only(suite):
    folder = suite.case(md=False, graders=None, case_yaml=YAML_CASE)
    case = suite.load()
    assert case.source == "case_yaml"
    assert (case.name, case.description, case.tags, case.runs) == ("yaml-case", "From YAML", ("y",), 4)
    assert (case.prompt, case.max_turns, case.timeout_seconds, case.model) == ("Do the thing.", 6, 90, "yaml-model")
    assert case.env == (("EVAL_A", "a"),)
    assert case.prompt_file == folder / "case.yaml"
    assert [(g.name, g.type, g.weight) for g in case.graders] == [("has-thing", "regex", 2), ("judge", "llm", 1)]
    assert case.graders[0].source == f"{folder / 'case.yaml'}:graders[0]"
    assert case.graders[1].config.criteria == "It did the thing."
    assert case.graders[1].body == "It did the thing."


def test_case_yaml_requires_schema_version_and_name(suite):
    suite.case(
        md=False, graders=None, case_yaml="execution:\n  prompt: Hi\ngraders:\n  - {name: g, type: regex, pattern: x}\n"
    )
    error = suite.fail()
    assert suite.rendered(error) == [
        'evals/c/case.yaml: schema_version: is required in case.yaml (e.g. schema_version: "1.0")',
        "evals/c/case.yaml: name: is required in case.yaml",
    ]
    assert error.name == "c"


def test_case_yaml_unknown_top_level_key(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nfoo: 1\nexecution:\n  prompt: Hi\n'
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [f"evals/c/case.yaml: foo: is not a case.yaml key (top-level keys: {TOP_KEYS})"]


@pytest.mark.parametrize(
    "key,home",
    [
        ("max_turns", "under `execution:`"),
        ("model", "under `execution:`"),
        ("prompt", "under `execution:`"),
        ("scaffold_script", "under `context:`"),
    ],
)
def test_case_yaml_misplaced_top_level_key(suite, key, home):
    suite.case(
        md=False,
        graders=None,
        case_yaml=f'schema_version: "1.0"\nname: n\n{key}: x\nexecution:\n  prompt: Hi\n'
        f"graders:\n  - {{name: g, type: regex, pattern: x}}\n",
    )
    assert suite.problems() == [
        f"evals/c/case.yaml: {key}: is not a case.yaml key — it belongs {home} (top-level keys: {TOP_KEYS})"
    ]


def test_case_yaml_misplaced_execution_runs(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\n  runs: 2\n'
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [
        f"evals/c/case.yaml: execution.runs: is not a key of `execution:` — it belongs at the "
        f"top level (expected: {EXEC_KEYS})"
    ]


def test_case_yaml_unknown_execution_and_context_keys(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\n  bogus: 1\n'
        "context:\n  prompt: x\n"
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [
        f"evals/c/case.yaml: execution.bogus: is not a key of `execution:` (expected: {EXEC_KEYS})",
        f"evals/c/case.yaml: context.prompt: is not a key of `context:` — it belongs under `execution:` "
        f"(expected: {CTX_KEYS})",
    ]


@pytest.mark.parametrize("section", ["execution", "context"])
def test_case_yaml_section_not_a_mapping(suite, section):
    prompt = "" if section == "execution" else "execution:\n  prompt: Hi\n"
    suite.case(
        md=False,
        graders=None,
        case_yaml=f'schema_version: "1.0"\nname: n\n{prompt}{section}: [a]\n'
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    expected = [f"evals/c/case.yaml: {section}: must be a mapping (got a list)"]
    if section == "execution":  # no prompt left
        expected.append(f"evals/c/case.yaml: execution.prompt: {EMPTY_PROMPT}")
    assert suite.problems() == expected


def test_case_yaml_execution_values_are_validated_with_their_path(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nruns: 0\nexecution:\n  prompt: Hi\n'
        "  max_turns: 0\n  env: {FOO: x}\n"
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [
        "evals/c/case.yaml: runs: must be a whole number from 1 to 50 (got 0)",
        "evals/c/case.yaml: execution.max_turns: must be a whole number from 1 to 200 (got 0)",
        "evals/c/case.yaml: execution.env.FOO: " + env_key_problem("FOO"),
    ]


def test_case_yaml_empty_prompt(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  max_turns: 3\n'
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [f"evals/c/case.yaml: execution.prompt: {EMPTY_PROMPT}"]


def test_case_yaml_non_string_prompt(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  prompt: [a]\n'
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems()[0] == "evals/c/case.yaml: execution.prompt: must be a string (got a list)"


def test_case_yaml_non_string_prompt_is_reported_once(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n  prompt: [a]\n'
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == ["evals/c/case.yaml: execution.prompt: must be a string (got a list)"]


def test_case_yaml_template_prompt_names_execution_prompt(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nexecution:\n'
        '  prompt: "TODO: describe what the agent should do"\n'
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [
        "evals/c/case.yaml: execution.prompt: is still the blank `init` template — replace "
        'the "TODO: describe what the agent should do" line with the user prompt to test'
    ]


def test_case_yaml_invalid_yaml(suite):
    suite.case(md=False, graders=None, case_yaml="name: [x\n")
    error = suite.fail()
    (line,) = suite.rendered(error)
    assert line.startswith("evals/c/case.yaml: invalid YAML: line ")
    assert error.name is None


def test_case_yaml_not_a_mapping(suite):
    suite.case(md=False, graders=None, case_yaml="- a\n- b\n")
    assert suite.problems() == ["evals/c/case.yaml: must be a YAML mapping (got a list)"]


INLINE_HEAD = 'schema_version: "1.0"\nname: n\nexecution:\n  prompt: Hi\n'


def test_inline_grader_needs_a_name(suite):
    suite.case(md=False, graders=None, case_yaml=INLINE_HEAD + "graders:\n  - {type: regex, pattern: x}\n")
    error = suite.fail()
    assert suite.rendered(error) == [
        "evals/c/case.yaml: graders[0].name: is required for a grader written in case.yaml"
    ]
    assert error.values_only is True


def test_inline_graders_not_a_list(suite):
    suite.case(md=False, graders=None, case_yaml=INLINE_HEAD + "graders:\n  g: {type: regex}\n")
    assert suite.problems() == ["evals/c/case.yaml: graders: must be a list of grader mappings (got a mapping)"]


def test_inline_grader_not_a_mapping(suite):
    suite.case(md=False, graders=None, case_yaml=INLINE_HEAD + "graders:\n  - regex\n")
    assert suite.problems() == ["evals/c/case.yaml: graders[0]: must be a mapping with name and type (got a string)"]


def test_inline_llm_criteria_not_a_string(suite):
    suite.case(md=False, graders=None, case_yaml=INLINE_HEAD + "graders:\n  - {name: j, type: llm, criteria: 5}\n")
    assert suite.problems() == ["evals/c/case.yaml: graders[0].criteria: must be a string (got a whole number)"]


def test_inline_llm_without_criteria(suite):
    suite.case(md=False, graders=None, case_yaml=INLINE_HEAD + "graders:\n  - {name: j, type: llm}\n")
    error = suite.fail()
    assert suite.rendered(error) == [
        "evals/c/case.yaml: graders[0].criteria: is empty — write the rubric (what a "
        "passing run looks like) as `criteria:`"
    ]
    assert error.values_only is True


def test_inline_grader_problems_name_their_index_and_key(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml=INLINE_HEAD + "graders:\n  - {name: a, type: regex, pattern: x}\n"
        "  - {name: b, type: regex, pattern: x, weight: -1}\n"
        "  - {name: c, type: llm, criteria: 'TODO: describe what a successful "
        "response looks like'}\n"
        "  - {name: d, type: regex}\n",
    )
    error = suite.fail()
    assert suite.rendered(error) == [
        "evals/c/case.yaml: graders[1].weight: must be a number greater than 0 (got -1)",
        'evals/c/case.yaml: graders[2]: grader "c" is still the blank `init` template — replace the "TODO: '
        'describe what a successful response looks like" line with concrete pass criteria',
        "evals/c/case.yaml: graders[3].pattern: is required (a `pattern:` key, or the pattern as the file's body)",
    ]
    assert error.values_only is True
    assert error.name == "n"


def test_inline_grader_missing_type(suite):
    suite.case(md=False, graders=None, case_yaml=INLINE_HEAD + "graders:\n  - {name: a, pattern: x}\n")
    error = suite.fail()
    assert suite.rendered(error) == [f"evals/c/case.yaml: graders[0].type: is required ({KINDS_BAR})"]
    assert error.values_only is False


def test_inline_duplicate_names(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml=INLINE_HEAD + "graders:\n  - {name: a, type: regex, pattern: x}\n"
        "  - {name: a, type: regex, pattern: y}\n",
    )
    (problem,) = suite.fail().problems
    assert problem.file.name == "case.yaml"
    assert (problem.key, problem.message) == (
        "graders[1].name",
        'another grader is already named "a"; grader names must be unique',
    )


# ---- prompt.md + case.yaml ------------------------------------------------------------------------------------

MIXED_YAML = """\
schema_version: "1.0"
name: from-yaml
runs: 2
execution:
  prompt: YAML prompt.
  max_turns: 4
  timeout_seconds: 100
  model: yaml-model
  disallowed_tools: [Agent]
graders:
  - {name: inline, type: regex, pattern: a}
"""


def test_mixed_precedence(suite):
    suite.case(
        fm="max_turns: 7\ndisallowed_tools: [TaskStop]",
        body="MD prompt.",
        graders={"file": REGEX_OK},
        case_yaml=MIXED_YAML,
    )
    case = suite.load()
    assert case.source == "mixed"
    assert case.name == "from-yaml"
    assert case.runs == 2
    assert case.max_turns == 7  # the frontmatter wins key by key
    assert case.timeout_seconds == 100  # …and case.yaml fills in the rest
    assert case.model == "yaml-model"
    assert case.prompt == "MD prompt."  # a non-empty body replaces execution.prompt
    assert case.disallowed_tools == ("Agent", "TaskStop")  # concatenated, YAML first
    assert [g.name for g in case.graders] == ["inline", "file"]  # YAML first
    assert case.prompt_file == suite.evals / "c" / "prompt.md"


def test_mixed_frontmatter_name_wins(suite):
    suite.case(fm="name: md-name\nruns: 9", graders=None, case_yaml=MIXED_YAML)
    case = suite.load()
    assert (case.name, case.runs) == ("md-name", 9)


def test_mixed_empty_body_keeps_execution_prompt(suite):
    suite.case(fm="max_turns: 7", body="", graders=None, case_yaml=MIXED_YAML)
    case = suite.load()
    assert (case.prompt, case.max_turns) == ("YAML prompt.", 7)


def test_mixed_disallowed_tools_only_in_yaml(suite):
    suite.case(graders=None, case_yaml=MIXED_YAML)
    assert suite.load().disallowed_tools == ("Agent",)


def test_mixed_duplicate_names_across_both(suite):
    suite.case(graders={"inline": REGEX_OK}, case_yaml=MIXED_YAML)
    assert suite.problems() == [
        'evals/c/graders/inline.md: name: another grader is already named "inline"; grader names must be unique'
    ]


def test_mixed_problems_name_their_own_file(suite):
    suite.case(fm="runs: 0", graders=None, case_yaml=MIXED_YAML.replace("max_turns: 4", "max_turns: 0"))
    assert suite.problems() == [
        "evals/c/case.yaml: execution.max_turns: must be a whole number from 1 to 200 (got 0)",
        "evals/c/prompt.md: runs: must be a whole number from 1 to 50 (got 0)",
    ]


def test_mixed_case_yaml_still_needs_its_required_keys(suite):
    suite.case(
        fm="name: md-name",
        graders=None,
        case_yaml="execution:\n  prompt: Hi\ngraders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [
        'evals/c/case.yaml: schema_version: is required in case.yaml (e.g. schema_version: "1.0")',
        "evals/c/case.yaml: name: is required in case.yaml",
    ]


def test_mixed_bad_yaml_disallowed_tools_reported_once(suite):
    suite.case(
        fm="disallowed_tools: [Agent]",
        graders=None,
        case_yaml=MIXED_YAML.replace("disallowed_tools: [Agent]", "disallowed_tools: [Bogus]"),
    )
    assert suite.problems() == [
        'evals/c/case.yaml: execution.disallowed_tools[0]: "Bogus" cannot be disallowed: it is not a built-in tool '
        "that can be removed — use bare names such as Agent or TaskStop (patterns such as Bash(rm:*) and MCP tools "
        "are not accepted)"
    ]


# ---- context ----------------------------------------------------------------------------------------------------


def ctx_case(suite: Suite, context: str) -> Path:
    return suite.case(
        md=False, graders=None, case_yaml=INLINE_HEAD + context + "graders:\n  - {name: g, type: regex, pattern: x}\n"
    )


def test_context_paths_inside_the_case(suite):
    folder = suite.evals / "c"
    (folder / "fixtures" / "more").mkdir(parents=True)
    (folder / "setup.sh").write_text("#!/bin/sh\n")
    (folder / "history.jsonl").write_text("{}\n")
    ctx_case(
        suite,
        "context:\n  scaffold_script: setup.sh\n  history_file: history.jsonl\n  add_dirs: [fixtures, fixtures/more]\n",
    )
    assert suite.load().context == Context(
        folder / "setup.sh", folder / "history.jsonl", (folder / "fixtures", folder / "fixtures/more")
    )


@pytest.mark.parametrize("key", ["scaffold_script", "history_file"])
def test_context_file_missing(suite, key):
    ctx_case(suite, f"context:\n  {key}: nope.sh\n")
    assert suite.problems() == [f'evals/c/case.yaml: context.{key}: "nope.sh" does not exist in the case folder']


@pytest.mark.parametrize("value", ["../other/setup.sh", "sub/../../x", "/etc/passwd"])
def test_context_path_leaving_the_case_folder(suite, value):
    (suite.evals / "other").mkdir()
    (suite.evals / "other" / "setup.sh").write_text("")
    ctx_case(suite, f"context:\n  scaffold_script: '{value}'\n")
    assert suite.problems() == [
        f'evals/c/case.yaml: context.scaffold_script: "{value}" leaves the case folder '
        f"(absolute or `..`) — it must name something inside it"
    ]


def test_context_files_are_copied_to_the_same_path_in_the_workspace(suite):
    folder = suite.evals / "c"
    (folder / "inputs").mkdir(parents=True)
    (folder / "inputs" / "sales.csv").write_text("a,b\n")
    ctx_case(suite, "context:\n  files: [inputs/sales.csv]\n")
    assert suite.load().context.files == ((folder / "inputs" / "sales.csv", "inputs/sales.csv"),)


def test_context_files_must_be_files_inside_the_case(suite):
    (suite.evals / "c" / "inputs").mkdir(parents=True)
    ctx_case(suite, "context:\n  files: [inputs, ../x, nope.csv]\n")
    assert suite.problems() == [
        'evals/c/case.yaml: context.files[0]: "inputs" is not a file',
        'evals/c/case.yaml: context.files[1]: "../x" leaves the case folder (absolute or `..`) — it must name '
        "something inside it",
        'evals/c/case.yaml: context.files[2]: "nope.csv" does not exist in the case folder',
    ]
    ctx_case(suite, "context:\n  files: inputs\n")
    assert suite.problems() == ["evals/c/case.yaml: context.files: must be a list of files (got a string)"]


def test_context_add_dirs_leaving_the_case_folder(suite):
    ctx_case(suite, "context:\n  add_dirs: [.., /tmp]\n")
    assert suite.problems() == [
        'evals/c/case.yaml: context.add_dirs[0]: ".." leaves the case folder (absolute or `..`) — it must name '
        "something inside it",
        'evals/c/case.yaml: context.add_dirs[1]: "/tmp" leaves the case folder (absolute or `..`) — it must name '
        "something inside it",
    ]


def test_context_symlink_out_of_the_case_folder(suite, tmp_path):
    (tmp_path / "outside.sh").write_text("")
    folder = ctx_case(suite, "context:\n  scaffold_script: link.sh\n")
    (folder / "link.sh").symlink_to(tmp_path / "outside.sh")
    assert suite.problems() == [
        'evals/c/case.yaml: context.scaffold_script: "link.sh" is a symlink out of the case folder'
    ]


def test_context_kinds(suite):
    folder = ctx_case(suite, "context:\n  scaffold_script: adir\n  add_dirs: [afile.txt]\n")
    (folder / "adir").mkdir()
    (folder / "afile.txt").write_text("")
    assert suite.problems() == [
        'evals/c/case.yaml: context.scaffold_script: "adir" is not a file',
        'evals/c/case.yaml: context.add_dirs[0]: "afile.txt" is not a folder',
    ]


def test_context_types(suite):
    ctx_case(suite, "context:\n  history_file: 5\n  add_dirs: fixtures\n")
    assert suite.problems() == [
        "evals/c/case.yaml: context.history_file: must be a path relative to the case folder (got a whole number)",
        "evals/c/case.yaml: context.add_dirs: must be a list of folders (got a string)",
    ]


def test_context_history_needs_a_prompt(suite):
    folder = suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\n'
        "context:\n  history_file: h.jsonl\n"
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    (folder / "h.jsonl").write_text("{}\n")
    assert suite.problems() == [
        f"evals/c/case.yaml: execution.prompt: {EMPTY_PROMPT}",
        "evals/c/case.yaml: context.history_file: needs a prompt: the resumed session needs a next turn",
    ]


# ---- plugins ------------------------------------------------------------------------------------------------


def test_plugins_inside_the_plugin(suite):
    suite.case(fm="plugins: [../../skills]")
    case = suite.load()
    assert case.plugins == (suite.plugin / "skills",)
    assert case.plugin_dirs == (suite.plugin / "skills",)


def test_plugins_missing_folder(suite):
    suite.case(fm="plugins: [nope]")
    assert suite.problems() == [
        'evals/c/prompt.md: plugins[0]: "nope" does not exist (plugins are folders relative to the case folder)'
    ]


def test_plugins_outside_the_plugin(suite, tmp_path):
    (tmp_path / "other").mkdir()
    suite.case(fm="plugins: [../../skills, ../../../other]")
    assert suite.problems() == [
        f'evals/c/prompt.md: plugins[1]: "../../../other" resolves to {tmp_path / "other"}, outside {suite.plugin}; '
        f"only plugins inside the plugin under test can be loaded from a case"
    ]


def test_plugins_in_case_yaml_name_case_yaml(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml='schema_version: "1.0"\nname: n\nplugins: [nope]\n'
        "execution:\n  prompt: Hi\n"
        "graders:\n  - {name: g, type: regex, pattern: x}\n",
    )
    assert suite.problems() == [
        'evals/c/case.yaml: plugins[0]: "nope" does not exist (plugins are folders relative to the case folder)'
    ]


# ---- where a case may live --------------------------------------------------------------------------------------


def test_a_case_under_mocks_is_reserved(suite):
    suite.case("mocks/c")
    error = suite.fail("mocks/c")
    assert suite.rendered(error) == [
        "evals/mocks/c: mocks/ is reserved for mock responders — a case there is never run; move it out of mocks/"
    ]
    assert error.name is None and error.values_only is False


def test_prompt_md_symlink_out_of_the_suite(suite, tmp_path):
    (tmp_path / "outside.md").write_text("Say hello.\n")
    folder = suite.case()
    (folder / "prompt.md").unlink()
    (folder / "prompt.md").symlink_to(tmp_path / "outside.md")
    error = suite.fail()
    assert suite.rendered(error) == [
        "evals/c/prompt.md: is reached through a symlink out of the suite; case files must live inside it"
    ]
    assert error.name is None


def test_a_case_folder_or_graders_folder_linked_out_of_the_suite_is_refused(suite, tmp_path):
    outside = tmp_path / "outside"
    (outside / "graders").mkdir(parents=True)
    (outside / "prompt.md").write_text("Say hello.\n")
    (outside / "graders" / "ok.md").write_text(REGEX_OK)
    (suite.evals / "linked").symlink_to(outside)
    assert suite.rendered(suite.fail("linked")) == [
        "evals/linked/prompt.md: is reached through a symlink out of the suite; case files must live inside it"
    ]
    folder = suite.case("c", graders=None)
    (folder / "graders").symlink_to(outside / "graders")
    assert suite.problems() == [
        "evals/c/graders/ok.md: is reached through a symlink out of the suite; grader files must live inside it"
    ]


def test_an_eval_dir_that_is_itself_a_link_still_loads(tmp_path):
    real = tmp_path / "elsewhere" / "evals"
    (real / "c" / "graders").mkdir(parents=True)
    (real / "c" / "prompt.md").write_text("Hi\n")
    (real / "c" / "graders" / "ok.md").write_text(REGEX_OK)
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "evals").symlink_to(real)
    evals = tmp_path / "plugin" / "evals"
    assert load_case(evals / "c", evals, grader_types()).prompt == "Hi"


def test_prompt_md_symlink_inside_the_suite(suite):
    (suite.plugin / "shared-prompt.md").write_text("Shared prompt.\n")
    folder = suite.case()
    (folder / "prompt.md").unlink()
    (folder / "prompt.md").symlink_to(suite.plugin / "shared-prompt.md")
    assert suite.load().prompt == "Shared prompt."


def test_case_without_a_plugin_manifest(tmp_path):
    # Claude Code needs no manifest: the eval dir's parent is the plugin, skills/ or not.
    evals = tmp_path / "evals"
    (evals / "c" / "graders").mkdir(parents=True)
    (evals / "c" / "prompt.md").write_text("Hi\n")
    (evals / "c" / "graders" / "ok.md").write_text(REGEX_OK)
    case = load_case(evals / "c", evals, grader_types())
    assert case.plugin_root == tmp_path and case.plugin_dirs == (tmp_path,)
    assert case.warnings == ()


def test_plugin_layout_problems_are_case_warnings(suite):
    (suite.plugin / "SKILL.md").write_text("---\nname: top\ndescription: d\n---\nx\n")
    manifest = suite.plugin / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({"name": "p", "skills": "./evals"}))
    suite.case()
    warnings = suite.load().warnings
    assert len(warnings) == 2
    assert warnings[0].startswith('⚠ plugin p: .claude-plugin/plugin.json declares "./evals" as a skills path')
    assert warnings[1].startswith("⚠ plugin p: SKILL.md is not loaded by Claude Code")


def test_is_case_dir_and_find_case_dirs(suite):
    suite.case("b")
    suite.case("a", md=False, graders=None, case_yaml=YAML_CASE)
    suite.case("group/inner")
    (suite.evals / "results" / "x").mkdir(parents=True)
    (suite.evals / "results" / "x" / "prompt.md").write_text("old\n")
    (suite.evals / "empty").mkdir()
    assert is_case_dir(suite.evals / "a") and is_case_dir(suite.evals / "b")
    assert not is_case_dir(suite.evals / "empty")
    assert find_case_dirs(suite.evals) == [suite.evals / "a", suite.evals / "b", suite.evals / "group" / "inner"]


def test_inline_duplicate_names_name_case_yaml_and_the_entry(suite):
    suite.case(
        md=False,
        graders=None,
        case_yaml=INLINE_HEAD + "graders:\n  - {name: a, type: regex, pattern: x}\n"
        "  - {name: a, type: regex, pattern: y}\n",
    )
    (problem,) = suite.fail().problems
    assert (problem.file, problem.key) == (suite.evals / "c" / "case.yaml", "graders[1].name")


def test_inline_criteria_type_problem_is_a_grader_problem(suite):
    suite.case(md=False, graders=None, case_yaml=INLINE_HEAD + "graders:\n  - {name: j, type: llm, criteria: 5}\n")
    assert suite.fail().values_only is True


def test_case_yaml_symlink_out_of_the_suite(suite, tmp_path):
    (tmp_path / "outside.yaml").write_text(YAML_CASE)
    folder = suite.evals / "c"
    folder.mkdir()
    (folder / "case.yaml").symlink_to(tmp_path / "outside.yaml")
    assert suite.problems() == [
        "evals/c/case.yaml: is reached through a symlink out of the suite; case files must live inside it"
    ]


def test_relative_paths_load(suite, monkeypatch):
    suite.case()
    monkeypatch.chdir(suite.plugin)
    assert load_case(Path("evals/c"), Path("evals"), grader_types()).name == "c"


# ---- scripted.yaml ---------------------------------------------------------------------------------------------


def test_a_valid_script_is_kept_on_the_case(suite):
    folder = suite.case()
    (folder / "scripted.yaml").write_text(
        "with:\n  - tool: Skill\n    input: {skill: p:s}\n  - Hello.\nwithout: [Hi.]\n"
    )
    script = suite.load().script
    assert script is not None and script.path == str(folder / "scripted.yaml")
    assert [b.name for t in script.turns("with", 1) for b in t.blocks if hasattr(b, "name")] == ["Skill"]
    assert script.turns("without", 2)[0].blocks[0].text == "Hi."


def test_a_case_without_a_script_has_none(suite):
    suite.case()
    assert suite.load().script is None


@pytest.mark.parametrize(
    "text, problem",
    [
        (
            "with:\n  - tool: Write\n    tool_input: {file_path: x}\n",
            "evals/c/scripted.yaml: with[0].tool_input: is not a key of a tool turn "
            "(expected: tool, input, delay, usage, drop, stall, trickle, pings, thinking, stop, repeat)",
        ),
        (
            "wiht: [hi]\n",
            "evals/c/scripted.yaml: wiht: is not a key of a script — did you mean with? (expected: with, without, against, all, judge, pairwise, models, controls)",
        ),
        (
            "with: [{tool: write, input: {}}]\n",
            "evals/c/scripted.yaml: with[0].tool: 'write' is no tool of Claude Code's — did you mean Write?",
        ),
        ("with: [\n", "evals/c/scripted.yaml: invalid YAML: "),
        ("", "evals/c/scripted.yaml: the script is empty; add a `with:` and/or `without:` list of turns"),
    ],
)
def test_a_bad_script_is_a_load_error_naming_file_and_key(suite, text, problem):
    (suite.case() / "scripted.yaml").write_text(text)
    error = suite.fail()
    [rendered] = suite.rendered(error)
    assert rendered.startswith(problem)
    assert error.values_only  # --case/--tag still know the case: its name and tags were read


def test_a_script_judge_key_must_name_a_judged_grader_or_default(suite):
    rubric = "---\ntype: llm\n---\nGreets.\n"
    folder = suite.case(graders={"ok": REGEX_OK, "warmth": rubric})
    (folder / "scripted.yaml").write_text("with: [Hi.]\njudge: {warmth: [PASS], default: [FAIL], mock: [Found.]}\n")
    assert set(suite.load().script.judge) == {"warmth", "default", "mock"}
    (folder / "scripted.yaml").write_text("with: [Hi.]\njudge: {warm: [PASS], ok: [PASS]}\n")
    assert suite.rendered(suite.fail()) == [
        f"evals/c/scripted.yaml: judge.{key}: names no judged grader of this case (its llm and baseline graders: "
        "warmth) — use one of their names, `default` for all of them, `mock` for agent mocks, or `user` for the "
        "simulated user"
        for key in ("warm", "ok")
    ]


def test_a_bad_script_is_listed_with_the_cases_other_problems(suite):
    (suite.case(fm="runs: 0") / "scripted.yaml").write_text("with: [{text: 3}]\n")
    problems = suite.problems()
    assert problems[-1] == "evals/c/scripted.yaml: with[0].text: must be a string (got a whole number)"
    assert problems[0].startswith("evals/c/prompt.md: runs:")


# ---- which mocks the case's mock_calls graders see -------------------------------------------------------------


def mock(folder: Path, server: str, tool: str = "lookup") -> None:
    (folder / "mocks" / server).mkdir(parents=True, exist_ok=True)
    (folder / "mocks" / server / f"{tool}.md").write_text("found\n")


@pytest.mark.parametrize(
    "servers, all_shadow",
    [
        ([], False),  # nothing mocked: no stand-in in either arm
        (["tracker"], True),  # shadows the declared server: served with the plugin only
        (["tracker", "notes"], False),  # notes is standalone: served in the without arm too
        (["notes"], False),
    ],
)
def test_mocks_all_shadow(suite, servers, all_shadow):
    (suite.plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "x"}}}))
    folder = suite.case()
    for server in servers:
        mock(folder, server)
    assert suite.load().mocks_all_shadow is all_shadow


def test_a_mock_folder_without_responders_mocks_nothing(suite):
    (suite.plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "x"}}}))
    folder = suite.case()
    mock(suite.evals, "tracker")
    (folder / "mocks" / "notes").mkdir(parents=True)  # no <tool>.md: not started, in either arm
    assert suite.load().mocks_all_shadow is True


def test_servers_are_those_the_cases_plugins_declare(suite):
    (suite.plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "x"}}}))
    other = suite.plugin / "fixtures" / "other"
    (other / ".claude-plugin").mkdir(parents=True)
    (other / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "o", "mcpServers": {"notes": {}}}))
    folder = suite.case(fm="plugins: [../../fixtures/other]")
    mock(folder, "notes")
    assert suite.load().mocks_all_shadow is True
    mock(folder, "tracker")  # the plugin under test is not loaded: its server is not declared here
    assert suite.load().mocks_all_shadow is False
