import json
import sys

from pytest_plugin_eval.run.access import NO_ACCESS_FIX, detect, verify


def login_home(tmp_path, expires_at=4_000_000_000_000, **extra):
    (tmp_path / ".claude").mkdir(exist_ok=True)
    login = {"accessToken": "sk-ant-oat01-ACCESS", "refreshToken": "sk-ant-ort01-REFRESH", "expiresAt": expires_at}
    (tmp_path / ".claude" / ".credentials.json").write_text(json.dumps({"claudeAiOauth": {**login, **extra}}))
    return {"HOME": str(tmp_path)}


def test_a_login_gives_runs_its_access_token_and_never_the_refresh_token(tmp_path):
    access = detect(login_home(tmp_path, subscriptionType="max"), now_ms=0)
    assert access.kind == "login" and access.plan and not access.direct
    assert access.env == {"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-ACCESS"}
    assert "REFRESH" not in json.dumps(access.env) and "REFRESH" not in json.dumps(access.to_json())
    assert access.summary() == "Claude Code login (max plan) for runs and judges (judges ask through Claude Code)"
    assert access.notes == ()


def test_the_login_is_read_from_claude_config_dir_when_set(tmp_path):
    login_home(tmp_path)
    environ = {"HOME": "/nonexistent", "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude")}
    assert detect(environ).kind == "login"


def test_an_expired_login_is_said_with_its_fix_and_not_refreshed(tmp_path):
    environ = login_home(tmp_path, expires_at=1000)
    before = (tmp_path / ".claude" / ".credentials.json").read_bytes()
    access = detect(environ, now_ms=2000)
    assert access.kind == "login" and "run `claude` once" in access.notes[0]
    assert (tmp_path / ".claude" / ".credentials.json").read_bytes() == before


def test_claude_codes_own_order(tmp_path):
    home = login_home(tmp_path)
    assert detect({**home, "ANTHROPIC_API_KEY": "k"}).kind == "api-key"
    assert detect({**home, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_AUTH_TOKEN": "t"}).kind == "auth-token"
    assert detect({**home, "CLAUDE_CODE_OAUTH_TOKEN": "t"}).kind == "setup-token"
    assert detect({**home, "ANTHROPIC_API_KEY": "k", "CLAUDE_CODE_USE_BEDROCK": "1"}).kind == "bedrock"
    assert detect({**home, "CLAUDE_CODE_USE_VERTEX": "true"}).kind == "vertex"
    assert detect({**home, "CLAUDE_CODE_USE_FOUNDRY": "1"}).kind == "foundry"
    assert detect({**home, "CLAUDE_CODE_USE_BEDROCK": "0"}).kind == "login"
    assert detect({**home, "ANTHROPIC_API_KEY": "k"}).direct
    assert not detect({**home, "CLAUDE_CODE_USE_BEDROCK": "1"}).direct


def test_an_api_key_helper_runs_once_in_the_parent_and_its_key_reaches_runs_as_a_credential(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"apiKeyHelper": "echo sk-from-helper"}))
    access = detect({"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert access.kind == "api-key-helper" and access.direct
    assert access.env == {"ANTHROPIC_API_KEY": "sk-from-helper"}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"apiKeyHelper": "exit 3"}))
    broken = detect({"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert broken.kind == "none" and "apiKeyHelper `exit 3` printed no key (exit 3)" in (broken.fix or "")


def test_no_access_names_every_way_in_and_never_only_an_api_key(tmp_path):
    access = detect({"HOME": str(tmp_path)})
    assert access.kind == "none" and access.fix == NO_ACCESS_FIX
    for way in ("`/login`", "`claude setup-token`", "ANTHROPIC_API_KEY", "CLAUDE_CODE_USE_BEDROCK=1"):
        assert way in access.summary()


def fake_claude(tmp_path, status: dict):
    path = tmp_path / "claude"
    path.write_text(
        f"#!{sys.executable}\nimport json, os, sys\nassert sys.argv[1:] == ['auth', 'status']\n"
        f"open({str(tmp_path / 'env.json')!r}, 'w').write(json.dumps(dict(os.environ)))\n"
        f"print(json.dumps({status!r}))\n"
    )
    path.chmod(0o755)
    return path


def test_verify_asks_claude_code_in_a_runs_isolated_config_and_says_what_it_found(tmp_path):
    environ = login_home(tmp_path)
    claude = fake_claude(tmp_path, {"loggedIn": True, "authMethod": "oauth_token", "apiProvider": "firstParty"})
    access = verify(detect(environ), claude, environ)
    assert access.checked == "`claude auth status` in a run's config: signed in (oauth_token)"
    env = json.loads((tmp_path / "env.json").read_text())
    assert env["CLAUDE_CODE_OAUTH_TOKEN"] == "sk-ant-oat01-ACCESS"
    assert env["HOME"] != str(tmp_path) and env["CLAUDE_CONFIG_DIR"] != str(tmp_path / ".claude")


def test_verify_names_the_fix_when_a_run_would_not_be_signed_in(tmp_path):
    claude = fake_claude(tmp_path, {"loggedIn": False, "authMethod": "none"})
    access = verify(detect({"HOME": str(tmp_path)}), claude, {"HOME": str(tmp_path)})
    assert access.checked.endswith("not signed in") and "`claude setup-token`" in access.notes[-1]
    assert access.to_json()["checked"] == access.checked
