"""A suite that outgrows one machine: `--shard K/N` jobs, then `plugin-eval merge`, give what one session gives."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers.e2e import GREETING_GRADERS

HALF = {"with": {1: ["Hello from the plugin."], "default": ["Nope."]}, "without": ["Nope."]}
GOOD = {"all": ["Hello from the plugin."]}


def timeless(aggregates: dict) -> dict:
    """Aggregates without the runs' wall time, which no two sessions share (their efficiency's `seconds`)."""
    out = dict(aggregates)
    out["efficiency"] = {k: v for k, v in out.get("efficiency", {}).items() if k != "seconds"}
    return out


def rows(output: str) -> list[str]:
    """The table's case rows, cost column aside (it is the only column that may round differently)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("CASE "))
    out = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        out.append(" ".join(part for part in line.split() if not part.startswith("$")))
    return out


def test_two_shards_merged_are_one_session(suite):
    for name, runs, script in (("a-good", 2, GOOD), ("b-half", 2, HALF), ("c-good", 1, GOOD), ("d-half", 3, HALF)):
        suite.case(name, frontmatter={"runs": runs}, graders=GREETING_GRADERS, script=script)
    whole = suite.run("--threshold", "0.6")
    shard_dirs = []
    for k in (1, 2):
        out = suite.root / f"shard-{k}"
        shard = suite.run("--threshold", "0.6", "--shard", f"{k}/2", "--output-dir", str(out))
        assert shard.doc["suite"]["shard"] == f"{k}/2"
        assert 0 < len(shard.doc["cases"]) < 4  # a share, not all
        shard_dirs.append(out)
    merged = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_plugin_eval.cli.main",
            "merge",
            *map(str, shard_dirs),
            "--output-dir",
            str(suite.root / "merged"),
            "--json",
            str(suite.root / "merged.json"),
        ],
        capture_output=True,
        text=True,
        cwd=suite.root,
        timeout=120,
    )
    doc = json.loads((suite.root / "merged.json").read_text())
    assert [c["name"] for c in doc["cases"]] == [c["name"] for c in whole.doc["cases"]]
    for mine, theirs in zip(doc["cases"], whole.doc["cases"], strict=True):
        assert timeless(mine["aggregates"]) == timeless(theirs["aggregates"]), mine["name"]
        assert {arm: len(runs) for arm, runs in mine["arms"].items()} == {
            arm: len(runs) for arm, runs in theirs["arms"].items()
        }
    assert timeless(doc["aggregates"]) == timeless(whole.doc["aggregates"])
    assert merged.returncode == whole.rc == 1  # the two half cases are below 0.6
    assert rows(merged.stdout) == rows(whole.out)
    assert "shard" not in doc["suite"] and len(doc["suite"]["mergedFrom"]) == 2
    # The runs' artefacts were copied in: the report reads the copies.
    for case in doc["cases"]:
        for run in case["arms"]["with"]:
            assert run["tracePath"].startswith(str(suite.root / "merged"))
    assert (suite.root / "merged" / "report.html").exists()


def test_merging_one_shard_twice_is_refused(suite):
    suite.case("a-good", frontmatter={"runs": 1}, graders=GREETING_GRADERS, script=GOOD)
    suite.run("--shard", "1/1", "--output-dir", str(suite.root / "s"))
    merged = subprocess.run(
        [sys.executable, "-m", "pytest_plugin_eval.cli.main", "merge", "s", "s"],
        capture_output=True,
        text=True,
        cwd=suite.root,
        timeout=120,
    )
    assert merged.returncode == 1 and "is in both" in merged.stderr
