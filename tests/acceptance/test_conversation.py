"""Skills that ask, end to end through the real Claude Code: scripted turns, answered questions, a simulated user."""

from __future__ import annotations

import json

from helpers.e2e import normalized

INTERVIEW_SCRIPT = {
    "all": [
        {"text": "What is your name?"},
        {"text": "And what do you drink?"},
        {"text": "Summary: {arm} run, name and drink noted."},
    ]
}
SUMMARY = {"summary": "---\ntype: regex\npattern: ^Summary\ntarget: last_message\n---\n"}


def user_lines(run: dict) -> list[str]:
    """The user messages Claude Code replayed into the run's trace, in order."""
    out = []
    with open(run["tracePath"]) as trace:
        for line in trace:
            event = json.loads(line)
            if event.get("type") == "user" and event.get("isReplay"):
                out.append(event["message"]["content"])
    return out


def test_scripted_turns_are_sent_in_the_same_session_in_both_arms(suite):
    suite.case(
        "interview",
        "Interview me.",
        frontmatter={"runs": 1, "turns": ["I am Ada.", "Tea, please."]},
        graders=SUMMARY,
        script=INTERVIEW_SCRIPT,
    )
    run = suite.run()
    assert run.rc in (0, 1), run.out
    case = run.case("interview")
    for arm in ("with", "without"):
        [result] = case["arms"][arm]
        assert result.get("error") is None, result
        assert result["graders"][0]["passed"], result["graders"]
        assert user_lines(result) == ["Interview me.", "I am Ada.", "Tea, please."]
        assert result["conversation"]["messages"] == [
            {"by": "prompt", "text": "Interview me."},
            {"by": "scripted", "text": "I am Ada."},
            {"by": "scripted", "text": "Tea, please."},
        ]
        # one session: every turn's result line carries the same session id
        with open(result["tracePath"]) as trace:
            results = [json.loads(line) for line in trace if '"type":"result"' in line]
        assert len(results) == 3 and len({r["session_id"] for r in results}) == 1
        assert result["turns"] == 3  # the agent's turns over the whole conversation


def test_max_turns_covers_the_whole_conversation(suite):
    # Claude Code counts turns per message: two one-turn replies use max_turns 2, so the last turn is never sent.
    suite.case(
        "short",
        "Interview me.",
        frontmatter={"runs": 1, "max_turns": 2, "turns": ["I am Ada.", "Tea, please."]},
        graders=SUMMARY,
        script=INTERVIEW_SCRIPT,
    )
    run = suite.run()
    [result] = run.case("short")["arms"]["with"]
    assert result["errorKind"] == "max_turns", result
    assert "max_turns (2)" in result["error"]
    assert user_lines(result) == ["Interview me.", "I am Ada."]


def ask(question: str, header: str) -> dict:
    options = [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]
    return {
        "tool": "AskUserQuestion",
        "input": {"questions": [{"question": question, "header": header, "multiSelect": False, "options": options}]},
    }


def tool_result_texts(run: dict) -> list[str]:
    out = []
    with open(run["tracePath"]) as trace:
        for line in trace:
            event = json.loads(line)
            if event.get("type") == "user" and isinstance(event["message"].get("content"), list):
                out += [str(b.get("content")) for b in event["message"]["content"] if b.get("type") == "tool_result"]
    return out


def test_ask_user_question_is_answered_from_answers_in_both_arms(suite):
    suite.case(
        "asks",
        "Pick a colour for me.",
        frontmatter={"runs": 1, "answers": {"colou?r": "Blue"}},
        graders=SUMMARY,
        script={"all": [ask("Which colour do you like?", "Colour"), {"text": "Summary: you chose it."}]},
    )
    run = suite.run()
    case = run.case("asks")
    for arm in ("with", "without"):
        [result] = case["arms"][arm]
        assert result.get("error") is None and result["score"] == 1.0, result
        assert tool_result_texts(result) == [
            'Your questions have been answered: "Which colour do you like?"="Blue". You can now continue with these '
            "answers in mind."
        ]
        assert result["conversation"]["questions"] == [
            {"question": "Which colour do you like?", "header": "Colour", "answer": "Blue", "by": "answers"}
        ]
        assert "refusedTools" not in result
    kinds = {f["kind"] for f in run.doc.get("findings", [])}
    assert not kinds & {"unanswered-question", "tool-refused"}, kinds


def test_an_unmatched_question_is_reported_by_name(suite):
    suite.case(
        "budget",
        "Plan my trip.",
        frontmatter={"runs": 1, "answers": {"colou?r": "Blue"}},
        graders=SUMMARY,
        script={"all": [ask("What is your budget?", "Budget"), {"text": "Summary: planned without a budget."}]},
    )
    run = suite.run()
    [result] = run.case("budget")["arms"]["with"]
    assert result["conversation"]["questions"] == [
        {"question": "What is your budget?", "header": "Budget", "answer": None, "by": None}
    ]
    assert result["refusedTools"] == [{"tool": "AskUserQuestion", "why": "unanswerable"}]
    [finding] = [f for f in run.doc["findings"] if f["kind"] == "unanswered-question"]
    assert finding["case"] == "budget"
    assert '"What is your budget?"' in finding["message"] and "with-plugin runs 1/1" in finding["message"]
    assert '"What is your budget?"' in run.out  # the session says it too


def test_a_simulated_user_answers_under_scripted_until_it_is_done(suite):
    suite.case(
        "persona",
        "Interview me.",
        frontmatter={"runs": 1, "user": {"persona": "Ada, who runs a bakery.", "max_user_turns": 5}},
        graders=SUMMARY,
        script={**INTERVIEW_SCRIPT, "judge": {"user": ["I am Ada.", "Bread, mostly.", "END_CONVERSATION"]}},
    )
    run = suite.run()
    for arm in ("with", "without"):
        [result] = run.case("persona")["arms"][arm]
        assert result.get("error") is None and result["score"] == 1.0, result
        assert user_lines(result) == ["Interview me.", "I am Ada.", "Bread, mostly."]
        talk = result["conversation"]
        assert [m["by"] for m in talk["messages"]] == ["prompt", "simulated", "simulated"]
        assert talk["userCostUsd"] > 0  # three replies of the judge model, priced as judge calls
        assert result["costUsd"] >= talk["userCostUsd"]


def test_a_question_no_pattern_matches_is_answered_by_the_simulated_user(suite):
    # answers: first, then the simulated user — through Claude Code's permission prompt, in evaluation mode.
    suite.case(
        "asks-ada",
        "Pick a colour for me.",
        frontmatter={"runs": 1, "answers": {"size": "M"}, "user": {"persona": "Ada, who likes blue."}},
        graders=SUMMARY,
        script={
            "all": [ask("Which colour do you like?", "Colour"), {"text": "Summary: you chose it."}],
            "judge": {"user": ["Blue", "END_CONVERSATION"]},
        },
    )
    run = suite.run("--ablation", "none")
    [result] = run.case("asks-ada")["arms"]["with"]
    assert result.get("error") is None and result["score"] == 1.0, result
    assert tool_result_texts(result)[0].startswith(
        'Your questions have been answered: "Which colour do you like?"="Blue"'
    )
    assert result["conversation"]["questions"] == [
        {"question": "Which colour do you like?", "header": "Colour", "answer": "Blue", "by": "simulated"}
    ]


def test_max_user_turns_caps_the_simulated_users_answers_and_the_results_say_so(suite):
    # One reply allowed: the simulated user answers the first question; the second goes unanswered.
    suite.case(
        "capped",
        "Pick a colour and a size for me.",
        frontmatter={"runs": 1, "user": {"persona": "Ada, who likes blue.", "max_user_turns": 1}},
        graders=SUMMARY,
        script={
            "all": [ask("Which colour do you like?", "Colour"), ask("Which size?", "Size"), {"text": "Summary."}],
            "judge": {"user": ["Blue", "M"]},
        },
    )
    run = suite.run("--ablation", "none")
    [result] = run.case("capped")["arms"]["with"]
    talk = result["conversation"]
    assert [(q["question"], q["answer"]) for q in talk["questions"]] == [
        ("Which colour do you like?", "Blue"),
        ("Which size?", None),
    ]
    assert talk["userCapped"] is True and [m["by"] for m in talk["messages"]] == ["prompt"]
    [finding] = [f for f in run.doc["findings"] if f["kind"] == "user-turns-capped"]
    assert finding["case"] == "capped" and "with-plugin runs 1/1" in finding["message"]
    assert "max_user_turns (1)" in run.out  # the notice


def test_the_cost_ceiling_stops_a_runaway_simulated_conversation(suite):
    # The user never says it is done and the agent never stops asking: only the ceiling ends it.
    suite.case(
        "runaway",
        "Interview me.",
        frontmatter={"runs": 1, "max_turns": 200, "user": {"persona": "Talkative.", "max_user_turns": 50}},
        graders=SUMMARY,
        script={"all": [{"text": "Tell me more.", "repeat": 200}], "judge": {"user": ["More."]}},
    )
    run = suite.run("--max-cost-usd", "0.005")
    [result] = run.case("runaway")["arms"]["with"]
    said = result["conversation"]["messages"]
    assert 1 < len(said) < 51, len(said)
    assert "cost ceiling (--max-cost-usd) reached: the simulated user stopped" in run.out
    assert run.doc["partial"] is True or run.doc.get("skippedRuns"), run.doc.keys()


def test_graders_read_one_turn_every_turn_or_the_whole_conversation(suite):
    graders = {
        "first-turn": "---\ntype: regex\npattern: ^What is your name\ntarget: last_message\nturn: 1\n---\n",
        "every-turn-asks": "---\ntype: regex\npattern: \\?$\ntarget: last_message\nturn: every\n---\n",
        "judged": "---\ntype: llm\n---\nThe agent summarises what the user said.\n",
        **SUMMARY,
    }
    suite.case(
        "graded",
        "Interview me.",
        frontmatter={"runs": 1, "turns": ["I am Ada.", "Tea, please."]},
        graders=graders,
        script=INTERVIEW_SCRIPT,
    )
    run = suite.run()
    [result] = run.case("graded")["arms"]["with"]
    verdicts = {g["name"]: g for g in result["graders"]}
    assert verdicts["first-turn"]["passed"], verdicts["first-turn"]
    assert verdicts["summary"]["passed"]  # last_message: the agent's last message of the conversation
    every = verdicts["every-turn-asks"]
    assert not every["passed"] and every["explanation"].startswith("turn 3 of 3 failed"), every
    evidence = verdicts["judged"]["evidence"]
    assert "[user] Interview me." in evidence and "[user] I am Ada." in evidence
    assert "[agent] And what do you drink?" in evidence and evidence.rstrip().endswith("noted.")


def test_the_html_report_marks_scripted_and_simulated_user_messages(suite):
    suite.case(
        "marked",
        "Interview me.",
        frontmatter={"runs": 1, "turns": ["I am Ada."], "user": {"persona": "Ada, a baker."}},
        graders=SUMMARY,
        script={**INTERVIEW_SCRIPT, "judge": {"user": ["Bread, mostly.", "END_CONVERSATION"]}},
    )
    run = suite.run()
    [result] = run.case("marked")["arms"]["with"]
    assert [m["by"] for m in result["conversation"]["messages"]] == ["prompt", "scripted", "simulated"]
    [report] = (suite.root / "evals" / "results").glob("*/report.html")
    html = report.read_text()
    start = html.index('<div class="conv">')
    conv = html[start : html.find('<div class="conv">', start + 1)]  # one run's transcript
    assert '<div class="msg user scripted">' in conv and "User · scripted turn" in conv
    assert '<div class="msg user simulated">' in conv and "User · simulated" in conv
    scripted, simulated = conv.index("I am Ada."), conv.index("Bread, mostly.")
    assert conv.index("User · scripted turn") < scripted < conv.index("User · simulated") < simulated
    assert conv.count("Interview me.") == 1  # the prompt, shown once


def test_regrade_grades_a_stored_conversation_turn_by_turn(suite):
    folder = suite.case(
        "again",
        "Interview me.",
        frontmatter={"runs": 1, "turns": ["I am Ada.", "Tea, please."]},
        graders=SUMMARY,
        script=INTERVIEW_SCRIPT,
    )
    first = suite.run()
    [stored] = (suite.root / "evals" / "results").glob("*/aggregate-result.json")
    # a grader added after the session reads the stored conversation's second turn
    (folder / "graders" / "second.md").write_text(
        "---\ntype: regex\npattern: drink\ntarget: last_message\nturn: 2\n---\n"
    )
    again = suite.run("--regrade", str(stored.parent))
    [before] = first.case("again")["arms"]["with"]
    [after] = again.case("again")["arms"]["with"]
    assert after["conversation"] == before["conversation"]
    assert {g["name"]: g["passed"] for g in after["graders"]} == {"second": True, "summary": True}


def test_the_time_limit_covers_the_whole_conversation(suite):
    # Each reply takes 4 s, well within 10 s; three of them do not fit in it together.
    slow = [{"text": "What is your name?", "delay": 4}, {"text": "And?", "delay": 4}, {"text": "Summary", "delay": 4}]
    suite.case(
        "slow",
        "Interview me.",
        frontmatter={"runs": 1, "timeout_seconds": 10, "turns": ["I am Ada.", "Tea, please."]},
        graders=SUMMARY,
        script={"all": slow},
    )
    run = suite.run("--api-retries", "0")
    [result] = run.case("slow")["arms"]["with"]
    assert result["errorKind"] == "timeout", result
    assert user_lines(result)[:2] == ["Interview me.", "I am Ada."]  # the conversation had gone on


# A conversation in a session's other modes: --lf, xdist, a model matrix. Scripted turns, then a simulated user.
TALK = {"runs": 1, "turns": ["I am Ada."], "user": {"persona": "Ada, a baker."}}
TALK_SCRIPT = {**INTERVIEW_SCRIPT, "judge": {"user": ["Bread, mostly.", "END_CONVERSATION"]}}
TALK_MESSAGES = [
    {"by": "prompt", "text": "Interview me."},
    {"by": "scripted", "text": "I am Ada."},
    {"by": "simulated", "text": "Bread, mostly."},
]


def test_lf_reruns_a_failed_conversation_and_keeps_the_reused_ones(suite):
    failing = {**TALK_SCRIPT, "with": [*INTERVIEW_SCRIPT["all"][:2], {"text": "Done."}]}  # no summary: fails
    folder = suite.case("talk", "Interview me.", frontmatter=TALK, graders=SUMMARY, script=failing)
    args = ("evals", "--trust-plugin", "--scripted")
    first = suite.pytester.runpytest_subprocess(*args, "--json", "first.json")
    assert first.ret == 1, first.stdout.str()
    (folder / "scripted.yaml").write_text(json.dumps(TALK_SCRIPT))  # the agent now summarises; the case is unchanged
    again = suite.pytester.runpytest_subprocess(*args, "--lf", "-v", "--json", "second.json")
    text = again.stdout.str()
    assert again.ret == 0, text
    assert "re-running 1 run(s) of 1 failed case(s)" in text
    case = json.loads((suite.root / "second.json").read_text())["cases"][0]
    [with_run], [without_run] = case["arms"]["with"], case["arms"]["without"]
    assert not with_run.get("reused") and with_run["score"] == 1.0
    assert without_run.get("reused") is True
    for run in (with_run, without_run):  # the re-run conversation, and the reused one as it was stored
        assert run["conversation"]["messages"] == TALK_MESSAGES, run
    assert user_lines(with_run) == ["Interview me.", "I am Ada.", "Bread, mostly."]


def test_xdist_workers_hold_conversations_as_a_serial_session_does(suite):
    suite.case("talk", "Interview me.", frontmatter={**TALK, "runs": 2}, graders=SUMMARY, script=TALK_SCRIPT)
    serial = suite.run()
    parallel = suite.run("-n", "2")
    assert serial.rc == parallel.rc == 0, parallel.out
    assert "2 workers" in parallel.out
    assert normalized(parallel.doc) == normalized(serial.doc)
    for arm in ("with", "without"):
        for run in parallel.case("talk")["arms"][arm]:
            assert run["conversation"]["messages"] == TALK_MESSAGES, run
            assert user_lines(run) == ["Interview me.", "I am Ada.", "Bread, mostly."]


def test_a_model_matrix_holds_each_models_conversations(suite):
    haiku, sonnet = "claude-haiku-4-5", "claude-sonnet-4-5"
    suite.case("talk", "Interview me.", frontmatter=TALK, graders=SUMMARY, script=TALK_SCRIPT)
    out = suite.root / "out"
    run = suite.run("--model", f"{haiku},{sonnet}", "--output-dir", str(out))
    assert run.rc == 0, run.out
    for model in (haiku, sonnet):
        doc = json.loads((out / model / "aggregate-result.json").read_text())
        [case] = doc["cases"]
        assert case["effectiveModel"] == model
        for arm in ("with", "without"):
            [result] = case["arms"][arm]
            assert result["score"] == 1.0 and result["conversation"]["messages"] == TALK_MESSAGES, result
            assert result["conversation"]["userCostUsd"] > 0
            assert user_lines(result) == ["Interview me.", "I am Ada.", "Bread, mostly."]
