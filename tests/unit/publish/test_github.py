"""The sticky comment's REST calls (publish.github) against a local fake of GitHub's API: the first post creates,
the next updates the same comment, the marker is found on any page, a refusal is a clear GitHubError; and the
pull request, token and run link read from the environment."""

from __future__ import annotations

import json

import pytest
from helpers.fake_github import REPOSITORY, TOKEN, environment, fake_github

from pytest_plugin_eval.publish.github import (
    Client,
    GitHubError,
    PullRequest,
    pull_request_from_env,
    run_url,
)

MARK = "<!-- plugin-eval:pr-comment greeter -->"


def client(fake, pr: int = 5) -> Client:
    return Client(PullRequest(fake.url, REPOSITORY, pr, TOKEN))


def test_the_first_post_creates_and_the_next_updates_the_same_comment():
    with fake_github() as fake:
        first = client(fake).upsert(MARK, f"{MARK}\none")
        second = client(fake).upsert(MARK, f"{MARK}\ntwo")
    assert (first.action, second.action) == ("created", "updated")
    assert first.comment_id == second.comment_id
    assert [c["body"] for c in fake.on(5)] == [f"{MARK}\ntwo"]
    assert second.url.endswith(f"/pull/5#issuecomment-{first.comment_id}")
    assert [m for m, _ in fake.requests] == ["GET", "POST", "GET", "PATCH"]


def test_the_marker_is_found_past_the_first_page():
    with fake_github() as fake:
        for i in range(230):
            fake.add(5, f"comment {i}")
        ours = fake.add(5, f"{MARK}\nold")
        fake.add(5, "a reply after it")
        posted = client(fake).upsert(MARK, f"{MARK}\nnew")
    assert posted.action == "updated" and posted.comment_id == ours["id"]
    assert ours["body"] == f"{MARK}\nnew" and len(fake.on(5)) == 232
    pages = [path for method, path in fake.requests if method == "GET"]
    assert len(pages) == 3 and "page=3" in pages[-1]


def test_a_comment_that_quotes_the_marker_or_another_suites_is_left_alone():
    with fake_github() as fake:
        quoted = fake.add(5, f"> {MARK}\n> why is this red?")
        other = fake.add(5, "<!-- plugin-eval:pr-comment other-plugin -->\nits own")
        elsewhere = fake.add(6, f"{MARK}\nanother pull request's")
        posted = client(fake).upsert(MARK, f"{MARK}\nours")
    assert posted.action == "created"
    assert quoted["body"].startswith("> ") and other["body"].endswith("its own")
    assert elsewhere["body"].endswith("another pull request's")


def test_a_forks_read_only_token_is_refused_with_the_likely_cause():
    with fake_github() as fake:
        fake.refuse_writes = True
        with pytest.raises(GitHubError) as refused:
            client(fake).upsert(MARK, f"{MARK}\nbody")
    message = str(refused.value)
    assert "403" in message and "Resource not accessible by integration" in message
    assert "fork" in message and "pull-requests: write" in message


def test_a_bad_token_says_so():
    with fake_github() as fake:
        bad = Client(PullRequest(fake.url, REPOSITORY, 5, "nope"))
        with pytest.raises(GitHubError, match=r"401: Bad credentials\) — the token is not valid"):
            bad.upsert(MARK, MARK)


def test_an_unreachable_api_names_the_url():
    with fake_github() as fake:
        url = fake.url
    with pytest.raises(GitHubError, match=r"cannot reach GitHub's API at http://127\.0\.0\.1:\d+ .*GITHUB_API_URL"):
        Client(PullRequest(url, REPOSITORY, 5, TOKEN)).upsert(MARK, MARK)


def test_a_next_page_on_another_host_is_not_sent_the_token():
    class Answer:
        headers = {"Link": '<https://elsewhere.example/x?page=2>; rel="next"'}

        def read(self):
            return b"[]"

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    sent = []

    def opener(request):
        sent.append(request.full_url)
        return Answer()

    pr = PullRequest("https://api.github.example", REPOSITORY, 5, TOKEN)
    with pytest.raises(GitHubError, match="outside GITHUB_API_URL"):
        Client(pr, opener).find(MARK)
    assert sent == [f"https://api.github.example/repos/{REPOSITORY}/issues/5/comments?per_page=100"]


# ---- the environment -----------------------------------------------------------------------------------------


def test_the_pull_request_comes_from_the_event(tmp_path):
    with fake_github() as fake:
        env = environment(fake, tmp_path, pr=12)
    pr = pull_request_from_env(env)
    assert (pr.api_url, pr.repository, pr.number, pr.token) == (fake.url, REPOSITORY, 12, TOKEN)
    assert pull_request_from_env(env, number=3).number == 3


def test_an_issue_comment_on_a_pull_request_names_it(tmp_path):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"issue": {"number": 9, "pull_request": {"url": "…"}}}))
    env = {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": str(event)}
    assert pull_request_from_env(env).number == 9
    assert pull_request_from_env(env).api_url == "https://api.github.com"


def test_a_push_has_no_pull_request_to_comment_on(tmp_path):
    with fake_github() as fake:
        env = environment(fake, tmp_path, event="push")
    with pytest.raises(GitHubError, match=r"not a pull request's run \(event: push\).*--pr NUMBER"):
        pull_request_from_env(env)


@pytest.mark.parametrize(
    ("missing", "said"),
    [("GITHUB_TOKEN", "GITHUB_TOKEN is not set"), ("GITHUB_REPOSITORY", "GITHUB_REPOSITORY=''")],
)
def test_a_missing_variable_is_named(tmp_path, missing, said):
    with fake_github() as fake:
        env = environment(fake, tmp_path)
    del env[missing]
    with pytest.raises(GitHubError, match=said):
        pull_request_from_env(env)


def test_the_run_link():
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "5"}
    assert run_url(env) == "https://github.com/o/r/actions/runs/5"
    assert run_url(env | {"GITHUB_RUN_ATTEMPT": "2"}) == "https://github.com/o/r/actions/runs/5/attempts/2"
    assert run_url({}) is None
