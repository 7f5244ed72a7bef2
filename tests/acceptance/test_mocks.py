"""MCP mocks end to end: a plugin that declares MCP servers, evaluated through the real Claude Code with
stand-ins answering from mock files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import yaml
from helpers.e2e import tool_results

TRACKER = "mcp__plugin_greeter_tracker__"
ANY = {"any": "---\ntype: regex\npattern: .\n---\n"}
REAL_SERVER = textwrap.dedent("""
    import json, sys
    open(sys.argv[1], "a").write("started\\n")
    for line in sys.stdin:
        m = json.loads(line)
        if "id" not in m:
            continue
        if m.get("method") == "initialize":
            r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "real", "version": "1"}}
        elif m.get("method") == "tools/list":
            r = {"tools": [{"name": "lookup", "description": "real", "inputSchema": {"type": "object"}}]}
        elif m.get("method") == "tools/call":
            r = {"content": [{"type": "text", "text": "REAL ANSWER"}], "isError": False}
        else:
            r = {}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
""")


def mock_plugin(suite):
    """The greeter plugin declares two MCP servers: tracker (mocked below) and wiki (a real server)."""
    (suite.root / "real_server.py").write_text(REAL_SERVER)
    marker = suite.root / "real-server-started.txt"
    (suite.root / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "tracker": {"command": "false"},
                    "wiki": {"command": sys.executable, "args": [str(suite.root / "real_server.py"), str(marker)]},
                }
            }
        )
    )
    mocks = suite.root / "evals" / "mocks"
    (mocks / "tracker" / "fixtures").mkdir(parents=True)
    (mocks / "tracker" / "create_issue.md").write_text(
        textwrap.dedent("""
        ---
        expect:
          title: string
          priority: [low, medium, high]
        ---
        Created #4821: {{input.title}} ({{input.priority}}) labels={{input.labels}} first={{input.labels.0}} owner={{input.meta.owner}} missing=[{{input.nope}}]
    """).lstrip()
    )
    (mocks / "tracker" / "get_issue.md").write_text("FILE: {{file:fixtures/{input.id}.json}}\n")
    (mocks / "tracker" / "fixtures" / "7.json").write_text('{"id": 7}')
    (mocks / "tracker" / "list_issues.md").write_text("---\nerror: true\n---\ntracker is down\n")
    (mocks / "tracker" / "_tools.json").write_text(
        json.dumps(
            {"tools": [{"name": "create_issue", "description": "Create an issue", "inputSchema": {"type": "object"}}]}
        )
    )
    (mocks / "ghost").mkdir()
    (mocks / "ghost" / "ping.md").write_text("pong\n")
    (suite.root / "secret.txt").write_text("SECRET")
    return marker


def call(tool: str, **input) -> dict:
    return {"tool": tool, "input": input}


def test_fixed_mocks_answer_from_files_and_the_calls_are_graded(suite):
    mock_plugin(suite)
    graders = {
        "created": '---\ntype: regex\ntarget: mock_calls\npattern: \'"verdict":"ok"\'\n---\n',
        "count": "---\ntype: regex\ntarget: mock_calls\nmatch: 'count:4'\npattern: '\"tool\"'\n---\n",
    }
    script = {
        "all": [
            call(TRACKER + "create_issue", title="Bug X", priority="high", labels=["a", "b"], meta={"owner": "ann"}),
            call(TRACKER + "get_issue", id=7),
            call(TRACKER + "get_issue", id="../secret"),
            call(TRACKER + "list_issues"),
            call(TRACKER + "delete_issue", id=1),
            "done",
        ]
    }
    suite.case("basic", frontmatter={"runs": 1, "max_turns": 10}, graders=graders, script=script)
    suite.case("again", frontmatter={"runs": 2}, graders=ANY, script={"all": ["done"]})
    run = suite.run("--ablation", "none")
    [only] = run.case("basic")["arms"]["with"]
    results = tool_results(only)
    assert results[0] == 'Created #4821: Bug X (high) labels=["a","b"] first=a owner=ann missing=[]'
    assert results[1] == 'FILE: {"id": 7}'
    # (Claude Code appends a hint about deferred tools to the errors of tools called without ToolSearch)
    assert results[2].startswith('{input.id} = "../secret" is not a plain file-name segment')
    assert results[3].startswith("tracker is down")
    assert "No such tool available" in results[4]
    assert only["score"] == 1.0, only["graders"]
    mocks = only["mocks"]
    assert mocks["calls"]["total"] == 4 and mocks["calls"]["errors"] == 2
    assert mocks["calls"]["unmocked"] == [{"tool": TRACKER + "delete_issue", "count": 1}]
    kinds = {s["server"]: s for s in mocks["servers"]}
    assert kinds["tracker"]["kind"] == "shadow" and kinds["ghost"]["kind"] == "standalone"
    assert kinds["wiki"] == {"server": "wiki", "kind": "shadow", "withheld": True, "tools": []}
    # Tools served without a recorded schema: one notice per server and session, not per run or case.
    assert not any("_tools.json" in w for w in mocks["warnings"])
    listings = [n for n in run.doc["notices"] if "_tools.json" in n]
    assert [n.split(":")[0] for n in listings] == ["ℹ mocks/ghost/", "ℹ mocks/tracker/"]
    assert listings[1].startswith(
        "ℹ mocks/tracker/: 2 mocked tools have no entry in _tools.json (get_issue, list_issues)"
    )
    assert "create_issue" not in listings[1] and "tools/list" in listings[1]
    stored = next((suite.root / "evals" / "results").glob("*/runs/basic/with-1/mock-calls.jsonl")).read_text()
    assert json.loads(stored.splitlines()[0])["input"]["title"] == "Bug X"
    page = next((suite.root / "evals" / "results").glob("*/report.html")).read_text()
    header = page.split("<header>", 1)[1].split("</header>", 1)[0]
    assert "_tools.json" not in header  # not a banner above the summary cards
    assert page.count("2 mocked tools have no entry in _tools.json") == 1


def test_an_expect_violation_aborts_the_run_at_once_and_says_why(suite):
    mock_plugin(suite)
    script = {
        "all": [
            call(TRACKER + "create_issue", title="Bug Y", priority="urgent"),
            call(TRACKER + "create_issue", title="after the abort", priority="low"),
            "done",
        ]
    }
    suite.case("violate", frontmatter={"runs": 1}, graders=ANY, script=script)
    run = suite.run("--ablation", "none", "--threshold", "0")
    [only] = run.case("violate")["arms"]["with"]
    assert only["aborted"] == {
        "server": "tracker",
        "tool": "create_issue",
        "reason": 'the model\'s call violates expect: priority = "urgent" is not one of [low, medium, high]',
    }
    assert only["score"] == 0.0 and only["graders"] == [] and only["error"] is None
    assert only["mocks"]["calls"]["total"] == 1  # stopped before the second call
    assert "aborted by mock tracker/create_issue" in run.out  # the table's NOTES says why


def test_without_the_plugin_only_standalone_mocks_are_served(suite):
    marker = mock_plugin(suite)
    script = {"all": [call(TRACKER + "create_issue", title="T", priority="low"), call("mcp__ghost__ping"), "done"]}
    pinged = "---\ntype: regex\ntarget: mock_calls\npattern: mcp__ghost__ping\n---\n"
    suite.case("arms", frontmatter={"runs": 1}, graders={**ANY, "pinged": pinged}, script=script)
    run = suite.run("--threshold", "0")
    without = run.case("arms")["arms"]["without"][0]
    results = tool_results(without)
    assert "No such tool available" in results[0] and results[1] == "pong"
    assert [s["server"] for s in without["mocks"]["servers"]] == ["ghost"]
    assert not marker.exists()  # the declared wiki server never started: it was withheld
    # ghost is served in both arms, so a grader of the mock calls counts in both, as the reference tool does.
    for arm in ("with", "without"):
        [graded] = [g for g in run.case("arms")["arms"][arm][0]["graders"] if g["name"] == "pinged"]
        assert (graded["passed"], graded["withOnly"], graded["scored"]) == (True, False, True)


def test_real_servers_start_only_when_asked(suite):
    marker = mock_plugin(suite)
    suite.case(
        "real", frontmatter={"runs": 1}, graders=ANY, script={"all": [call("mcp__plugin_greeter_wiki__lookup"), "done"]}
    )
    run = suite.run("--ablation", "none", "--allow-real-servers", "--allow-tools", "mcp__plugin_greeter_wiki__lookup")
    assert tool_results(run.case("real")["arms"]["with"][0])[0] == "REAL ANSWER"
    assert marker.exists()
    assert any("REAL server starts" in n for n in run.doc["notices"])
    off = suite.run("--ablation", "none", "--mocks", "off")
    assert "mocks" not in off.case("real")["arms"]["with"][0]
    assert any("--mocks off" in n for n in off.doc["notices"])


def test_mock_configuration_errors_are_load_errors(suite):
    mock_plugin(suite)
    bad = suite.case("bad-mock", graders=ANY, script={"all": ["hi"]})
    (bad / "mocks" / "tracker").mkdir(parents=True)
    (bad / "mocks" / "tracker" / "create_issue.md").write_text("---\nexpect:\n  p: []\n---\nx\n")
    run = suite.run("--ablation", "none")
    [error] = run.doc["loadErrors"]
    assert error["case"] == "bad-mock"
    assert error["problems"][0]["key"] == "expect.p" and "can never be satisfied" in error["problems"][0]["message"]


def agent_suite(suite, replies):
    mock_plugin(suite)
    wiki = suite.root / "evals" / "mocks" / "wiki"
    wiki.mkdir()
    (wiki / "_server.md").write_text(
        textwrap.dedent("""
        ---
        type: agent
        tools: [get_page]
        ---
        A wiki holding one page, Home: "Welcome".
    """).lstrip()
    )
    suite.case(
        "agent",
        frontmatter={"runs": 1},
        graders=ANY,
        script={"all": [call("mcp__plugin_greeter_wiki__get_page", page="Home"), "done"], "judge": {"mock": replies}},
    )


def test_agent_mocks_record_and_replay_and_report_stale_recordings(suite):
    agent_suite(suite, ["Welcome (live)"])
    first = suite.run("--ablation", "none")
    assert tool_results(first.case("agent")["arms"]["with"][0])[0] == "Welcome (live)"
    recordings = list((suite.root / "evals" / "results").glob("*/mock-recordings/wiki/get_page-*.json"))
    assert len(recordings) == 1 and any("agent-mock recording" in n for n in first.doc["notices"])
    replay = suite.root / "evals" / "mocks" / ".replay" / "wiki"
    replay.mkdir(parents=True)
    (replay / recordings[0].name).write_bytes(recordings[0].read_bytes())
    agent_suite_replies = suite.root / "evals" / "agent" / "scripted.yaml"
    script = yaml.safe_load(agent_suite_replies.read_text())
    script["judge"]["mock"] = ["Welcome (a second live answer)"]
    agent_suite_replies.write_text(yaml.safe_dump(script))
    hit = suite.run("--ablation", "none")
    run = hit.case("agent")["arms"]["with"][0]
    assert tool_results(run)[0] == "Welcome (live)"  # replayed, not asked again
    assert run["mocks"]["calls"]["replay"] == {"hits": 1, "misses": 0, "stale": 0}
    # Editing the server's description makes the pin stale: the run says so and answers live.
    server = suite.root / "evals" / "mocks" / "wiki" / "_server.md"
    server.write_text(server.read_text().replace("Welcome", "Hello"))
    stale = suite.run("--ablation", "none").case("agent")["arms"]["with"][0]
    assert stale["mocks"]["calls"]["replay"]["stale"] == 1
    assert tool_results(stale)[0] == "Welcome (a second live answer)"


def test_an_agent_mock_can_abort_or_answer_an_error(suite):
    agent_suite(suite, ["ABORT: reading pages is not allowed here"])
    run = suite.run("--ablation", "none", "--threshold", "0")
    assert run.case("agent")["arms"]["with"][0]["aborted"]["reason"].endswith("reading pages is not allowed here")
    (suite.root / "evals" / "agent" / "scripted.yaml").write_text(
        yaml.safe_dump(
            {
                "all": [call("mcp__plugin_greeter_wiki__get_page", page="Home"), "done"],
                "judge": {"mock": ["ERROR: no such page"]},
            }
        )
    )
    errored = suite.run("--ablation", "none").case("agent")["arms"]["with"][0]
    assert tool_results(errored)[0].startswith("no such page") and errored["score"] == 1.0


def test_a_python_test_stands_up_the_same_mocks_for_its_own_agent(suite):
    mock_plugin(suite)
    suite.pytester.makepyfile(
        test_own_agent=textwrap.dedent(f'''
        import json, os, subprocess
        from pytest_plugin_eval.run.agent import bundled_claude
        from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
        from pytest_plugin_eval.load.script import parse_script

        def test_own_run(eval_mocks, tmp_path):
            mocks = eval_mocks(".")
            assert sorted(mocks.allowed_tools) == ["mcp__ghost__ping", "{TRACKER}create_issue", "{TRACKER}get_issue",
                                                   "{TRACKER}list_issues"]
            with ScriptedEndpoint() as endpoint:
                cwd = tmp_path / "home" / "cwd"
                cwd.mkdir(parents=True)
                url = endpoint.agent_url(parse_script({{"all": [{{"tool": "{TRACKER}create_issue",
                                                                 "input": {{"title": "A", "priority": "low"}}}}, "done"]}}))
                env = {{"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"), "ANTHROPIC_API_KEY": "x",
                       "CLAUDE_CONFIG_DIR": str(tmp_path / "config"), "ANTHROPIC_BASE_URL": url,
                       "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}}
                subprocess.run([str(bundled_claude()), "-p", "--output-format", "stream-json", "--verbose",
                                "--permission-mode", "dontAsk", "--setting-sources", "user", "--plugin-dir", os.getcwd(),
                                "--mcp-config", str(mocks.mcp_config), "--allowed-tools=" + ",".join(mocks.allowed_tools)],
                               input=b"go", cwd=cwd, env=env, capture_output=True, check=True)
            [made] = mocks.calls()
            assert made["tool"] == "{TRACKER}create_issue" and made["output"].startswith("Created #4821: A (low)")
    ''')
    )
    result = suite.pytester.runpytest_subprocess("test_own_agent.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_mock_files_that_are_symlinks_out_of_the_suite_are_refused(suite, tmp_path_factory):
    mock_plugin(suite)
    outside = tmp_path_factory.mktemp("outside") / "answer.md"
    outside.write_text("secret answer\n")
    (suite.root / "evals" / "mocks" / "tracker" / "close_issue.md").symlink_to(outside)
    suite.case("any", graders=ANY, script={"all": ["hi"]})
    run = suite.run("--ablation", "none")
    [error] = run.doc["loadErrors"]
    assert "symlink out of the suite" in error["message"] and "close_issue.md" in error["message"]


def test_mocked_tools_are_granted_to_every_run_and_nothing_says_otherwise(suite):
    """Issue 23 item 1: one rule — a mocked tool is granted to every run (as the reference tool grants its
    mockedTools); a real server's tool needs --allow-tools, and a wildcard grant covers it."""
    mock_plugin(suite)
    wiki = "mcp__plugin_greeter_wiki__lookup"
    suite.case(
        "mocked",
        frontmatter={"runs": 1, "allowed_tools": [TRACKER + "create_issue", wiki]},
        graders={
            "called": f"---\ntype: tool_used\ntool: {TRACKER}create_issue\n---\n",
            "looked": f"---\ntype: tool_used\ntool: {wiki}\n---\n",
        },
        script={"all": [call(TRACKER + "create_issue", title="T", priority="low"), call(wiki), "done"]},
    )
    checked = subprocess.run(
        [sys.executable, "-m", "pytest_plugin_eval.cli.main", "check", "."],
        cwd=suite.root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = checked.stdout + checked.stderr
    assert TRACKER + "create_issue" not in said, said
    # the case asks for the real server's tool in allowed_tools: the pilot `check` prints would grant it (the
    # operator's to pass), so it is no finding of the case; a session that does not grant it says so (below)
    assert "only you can grant" not in said, said

    run = suite.run("--ablation", "none")
    [only] = run.case("mocked")["arms"]["with"]
    assert {g["name"]: g["passed"] for g in only["graders"]}["called"] is True, only["graders"]
    notices = run.doc.get("notices", []) + run.case("mocked").get("warnings", [])
    assert not any(TRACKER + "create_issue" in n for n in notices), notices
    assert any(f"allowed_tools asks for {wiki}" in n for n in notices), notices  # not mocked: the operator's

    wildcard = suite.run("--ablation", "none", "--allow-real-servers", "--allow-tools", "mcp__plugin_greeter_wiki__*")
    notices = wildcard.doc.get("notices", []) + wildcard.case("mocked").get("warnings", [])
    assert not any("only the operator can grant" in n or "only you can grant" in n for n in notices), notices
    [only] = wildcard.case("mocked")["arms"]["with"]
    assert only["score"] == 1.0, only["graders"]


def test_a_grader_that_counts_in_no_score_is_said_at_run_time(suite):
    """Issue 23 item 2: the case's mocks all shadow the plugin's servers, so its regex on mock_calls is a with-only
    indicator; the session says so, and what makes it count."""
    mock_plugin(suite)
    shutil.rmtree(suite.root / "evals" / "mocks" / "ghost")  # no standalone mock: all shadow
    graders = {
        "created": "---\ntype: regex\ntarget: mock_calls\npattern: create_issue\n---\n",
        "called": f"---\ntype: tool_used\ntool: {TRACKER}create_issue\n---\n",
    }
    script = {"all": [call(TRACKER + "create_issue", title="T", priority="low"), "done"]}
    suite.case("files", frontmatter={"runs": 1}, graders=graders, script=script)
    run = suite.run()
    notices = run.doc.get("notices", [])
    assert any('case "files": grader "created" counts in no score' in n and "`arm: both`" in n for n in notices), (
        notices
    )
    [first] = run.case("files")["arms"]["with"]
    assert {g["name"]: g.get("scored", True) for g in first["graders"]}["created"] is False
