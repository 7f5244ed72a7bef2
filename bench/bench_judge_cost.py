"""What one llm grader's votes cost with prompt caching and without, from scripted usage figures. Prints figures;
asserts nothing.

Each grader is judged by the harness's own Judge against the scripted endpoint (pytest_plugin_eval/doubles),
which answers a request that marks `cache_control` as the API does: the first writes the cache (its input tokens
as cache-creation tokens), the later ones with the same prefix read it. "Without caching" is the same judge with
the cache mark switched off (every vote pays full input price, the first two in parallel): what judges cost
before issue 26's item 3. Prices are the list prices in pytest_plugin_eval/core/prices.py.

    .venv/bin/python bench/bench_judge_cost.py
    .venv/bin/python bench/bench_judge_cost.py --model sonnet --tokens 2000,8000,30000
"""

from __future__ import annotations

import argparse
from unittest import mock

from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.grade import judge as judge_module
from pytest_plugin_eval.grade.judge import Judge, resolve_judge_model
from pytest_plugin_eval.load.script import parse_script

OUTPUT_TOKENS = 2  # a verdict word
VOTE_PATTERNS = {"two agree": ["PASS", "PASS"], "split, third decides": ["PASS", "FAIL", "PASS"]}


def ballot_cost(endpoint: ScriptedEndpoint, model: str, tokens: int, replies: list[str], cached: bool) -> tuple:
    """One grader judged once: (cost in USD, votes cast). The prompt is long enough to be cached (as a grader
    that reads a trace is); `tokens` is what the scripted replies report as its input."""
    import anthropic

    usage = {"input_tokens": tokens, "output_tokens": OUTPUT_TOKENS}
    script = parse_script({"judge": {"g": [{"text": reply, "usage": usage} for reply in replies]}})
    url = endpoint.judge_url(script, "g")
    client = anthropic.Anthropic(base_url=url, api_key="scripted", max_retries=0)
    judge = Judge(model, lambda grader: client)
    content = [{"type": "text", "text": "criterion and evidence " * (judge_module.CACHEABLE_CHARS // 8)}]
    if cached:
        ballot = judge.ballot("g", content)
    else:
        with mock.patch.object(judge_module, "long_enough_to_cache", lambda content: False):
            ballot = judge.ballot("g", content)
    return ballot.cost_usd, len(ballot.votes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--model", default=resolve_judge_model(None, {}), help="the judge model priced (default: the harness's)"
    )
    parser.add_argument(
        "--tokens",
        default="2000,8000,30000",
        help="input tokens of a grader's prompt (criterion plus evidence), comma-separated",
    )
    args = parser.parse_args()
    sizes = [int(x) for x in args.tokens.split(",")]
    args.model = resolve_judge_model(args.model, {})
    print(f"judge cost per llm grader, model {args.model}, scripted usage figures (output {OUTPUT_TOKENS} tokens)")
    with ScriptedEndpoint() as endpoint:
        for pattern, replies in VOTE_PATTERNS.items():
            for tokens in sizes:
                plain, votes = ballot_cost(endpoint, args.model, tokens, replies, cached=False)
                cached, cached_votes = ballot_cost(endpoint, args.model, tokens, replies, cached=True)
                assert votes == cached_votes == len(replies), (votes, cached_votes)
                print(
                    f"  {pattern:22s} {tokens:6d} input tokens, {votes} votes: without caching ${plain:.6f}, "
                    f"with caching ${cached:.6f} = {cached / plain:.2f}×"
                )


if __name__ == "__main__":
    main()
