"""Unit tests for the review page (report/review.py laid out by review.html.j2) and its server's label changes
(publish/review_server.py): what a person sees of each run, and labels written through the one reader."""

from __future__ import annotations

import json

import pytest
from helpers.documents import case_result, suite_result

from pytest_plugin_eval.core.problems import SpecError
from pytest_plugin_eval.publish.review_server import Review
from pytest_plugin_eval.report.html import review_html
from pytest_plugin_eval.report.review import review_page
from pytest_plugin_eval.results.labels import Label, Labels, read_labels, rubric_hash
from pytest_plugin_eval.results.model import GraderInfo, GraderResult, RunResult
from pytest_plugin_eval.results.store import write_json
from pytest_plugin_eval.run.artefacts import RunFolder

RUBRIC = GraderInfo(
    "reads-well",
    "llm",
    1,
    {"criteria": "Greets </script> warmly.", "focus": "last_message"},
    markdown="Greets </script> warmly.",
)


def document():
    runs = [
        RunResult(
            "with",
            i,
            score=1.0 if i == 1 else 0.0,
            passed=i == 1,
            graders=[
                GraderResult(
                    "reads-well",
                    i == 1,
                    1,
                    "judge votes: PASS FAIL PASS",
                    judge_model="m",
                    judge_votes=[True, False, True],
                )
            ],
        )
        for i in (1, 2)
    ]
    return suite_result(case_result("greets", runs, graders=[RUBRIC]))


def test_the_page_holds_every_run_and_the_data_the_script_reads(tmp_path):
    kept = RunFolder(tmp_path / "runs" / "greets" / "with-1")
    (kept.files).mkdir(parents=True)
    (kept.files / "hello.txt").write_text("Hello!")
    labels = Labels().put(Label("greets", "with", 2, "reads-well", "fail", note="cold"))
    page = review_page(document(), tmp_path, labels, lambda case, run: kept if run.index == 1 else None)
    assert [r.title for r in page.runs] == ["greets · with-1", "greets · with-2"]
    assert page.runs[0].files[0].path == "hello.txt" and page.runs[0].files[0].text == "Hello!"
    assert page.runs[1].files == [] and "no files" in page.runs[1].files_note
    data = json.loads(page.data)
    assert data["mode"] == "server"
    grader = data["runs"][1]["graders"][0]
    assert grader == {
        "name": "reads-well",
        "type": "llm",
        "judged": True,
        "judgePassed": False,
        "judgeModel": "m",
        "split": True,
        "rubricHash": rubric_hash(RUBRIC),
    }
    assert data["labels"][0]["note"] == "cold"
    html = review_html(page)
    assert html.count('<section class="review-run"') == 2
    assert "Greets &lt;/script&gt; warmly." in html  # the rubric, escaped
    assert (
        "</script> warmly" not in html.split('id="review-data"')[1].split("</script>")[0]
    )  # the data cannot end its element


def test_a_conversations_user_messages_are_labelled_scripted_or_simulated(tmp_path):
    """The HTML report said who wrote each user message after the prompt; the review page showed them all as
    "User"."""
    kept = RunFolder(tmp_path / "runs" / "greets" / "with-1")
    kept.trace.parent.mkdir(parents=True)
    said = ["Plan my week.", "Mornings only.", "Thanks, that is all."]
    events = [{"type": "system", "subtype": "init"}]
    for text in said:
        events.append({"type": "user", "isReplay": True, "message": {"role": "user", "content": text}})
        events.append({"type": "assistant", "message": {"content": [{"type": "text", "text": "Noted."}]}})
    kept.trace.write_text("\n".join(map(json.dumps, events)))
    run = RunResult("with", 1, score=1.0, passed=True)
    run.conversation = {
        "messages": [{"by": by, "text": t} for by, t in zip(["prompt", "scripted", "simulated"], said, strict=True)]
    }
    page = review_page(
        suite_result(case_result("greets", [run], prompt="Plan my week.")), tmp_path, Labels(), lambda case, run: kept
    )
    conversation = page.runs[0].transcript.conversation
    assert conversation is not None
    users = [(e.kind, e.who, e.texts[0]) for e in conversation.head if e.kind.startswith("user")]
    assert users == [
        ("user", "User prompt", "Plan my week."),
        ("user scripted", "User · scripted turn", "Mornings only."),
        ("user simulated", "User · simulated", "Thanks, that is all."),
    ]
    html = review_html(page)
    assert '<div class="msg user scripted">' in html and '<div class="msg user simulated">' in html


def test_the_server_applies_one_change_at_a_time(tmp_path):
    write_json(tmp_path / "aggregate-result.json", document().to_json())
    review = Review(tmp_path)
    label = {"case": "greets", "arm": "with", "run": 1, "grader": "reads-well", "verdict": "pass", "codes": ["ok"]}
    assert len(review.change({"label": label}).labels) == 1
    assert len(review.change({"label": {**label, "verdict": "fail"}}).labels) == 1  # replaced, not added
    assert read_labels(tmp_path / "labels.json").labels[0].verdict == "fail"
    with pytest.raises(SpecError, match=r"labels\[0\]\.verdict"):
        review.change({"label": {**label, "verdict": "meh"}})
    with pytest.raises(SpecError):
        review.change({"nothing": 1})
    assert review.change({"remove": {"case": "greets", "arm": "with", "run": 1, "grader": "reads-well"}}).labels == []
    assert "greets · with-2" in review.page()
