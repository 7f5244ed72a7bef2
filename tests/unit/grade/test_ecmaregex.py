"""Unit tests for pytest_plugin_eval.ecmaregex: ECMAScript regexes run by QuickJS."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from pytest_plugin_eval.grade import ecmaregex
from pytest_plugin_eval.grade.ecmaregex import Found, RegexError, check, compact_json, count, find, flags_error, search

# 50 code points; the emoji is one code point but two UTF-16 code units.
TEXT = 'Alpha beta\nGAMMA delta 123\nnaïve café 😀\n"a/b" aaaa'


def test_text_fixture_has_50_code_points():
    assert len(TEXT) == 50
    assert len(TEXT.encode("utf-16-le")) // 2 == 51


# ---- find ------------------------------------------------------------------------------------------------


def test_find_gives_the_line_the_match_and_its_surroundings():
    assert find("delta", "", TEXT, edge=6) == Found(2, "GAMMA ", "delta", " 123\nn", True, True)
    assert find("^a", "", TEXT) is None
    assert find("alpha", "i", TEXT, edge=5) == Found(1, "", "Alpha", " beta", False, True)
    # the edge counts UTF-16 units, as JavaScript slices; half an emoji is shown as U+FFFD, never passed on
    assert find("café", "", TEXT, edge=2) == Found(3, "e ", "café", " \ufffd", True, True)
    assert find("café", "", TEXT, edge=3).after == " 😀"
    assert find("aaaa$", "", TEXT, edge=4) == Found(4, '/b" ', "aaaa", "", True, False)


# ---- count -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, flags, expected",
    [
        (".", "s", 51),  # without u: UTF-16 code units (the emoji counts twice)
        (".", "su", 50),  # with u: code points
        (".", "sv", 50),  # v implies unicode mode too
        (".", "", 48),  # without s: the three newlines are not matched
        ("x*", "", 52),  # empty matches: one at each of the 51 units plus the end
        ("x*", "u", 51),  # in unicode mode no empty match inside the surrogate pair
        ("a", "y", 0),  # sticky: the text starts with "A", so the first attempt fails and match stops
        ("A", "y", 1),  # sticky: "A" then "l" stops it
        ("aa", "", 2),  # "aaaa" gives two non-overlapping matches, not three
        ("a", "", 10),
        ("a", "i", 13),
        ("a", "gi", 13),  # an explicit g is not doubled
        ("\\d", "", 3),
        ("^", "m", 4),  # four line starts with m
        ("^", "", 1),
        ("zzz", "", 0),
    ],
)
def test_count(pattern, flags, expected):
    assert count(pattern, flags, TEXT) == expected


def test_count_returns_int():
    result = count("a", "", TEXT)
    assert type(result) is int


def test_count_lookbehind():
    assert count("(?<=a)a", "", "aaaa") == 3  # the lookbehind consumes nothing: positions 1, 2 and 3
    assert count("(?<!a)a", "", TEXT) == 7  # every "a" not preceded by another "a"


# ---- search ----------------------------------------------------------------------------------------------


def test_dollar_is_end_of_input_without_m():
    assert search("beta$", "", TEXT) is False
    assert search("beta$", "m", TEXT) is True
    assert search("aaaa$", "", TEXT) is True


def test_sticky_matches_only_at_the_start():
    assert search("Alpha", "y", TEXT) is True
    assert search("beta", "y", TEXT) is False
    assert search("beta", "", TEXT) is True


def test_case_insensitivity_only_with_i():
    assert search("gamma", "", TEXT) is False
    assert search("gamma", "i", TEXT) is True


def test_named_groups_and_backreferences():
    assert search(r"(?<word>a)\k<word>", "", TEXT) is True
    assert search(r"(?<num>\d+)$", "m", TEXT) is True
    assert count(r"(?<pair>aa)", "", TEXT) == 2


def test_lookbehind():
    assert search(r"(?<=delta )123", "", TEXT) is True
    assert search(r"(?<=beta )123", "", TEXT) is False
    assert search(r"(?<!delta )123", "", TEXT) is False


def test_v_flag_set_subtraction():
    # Letters that are not lowercase ASCII: A, G A M M A, ï, é.
    assert count(r"[\p{L}--[a-z]]", "v", TEXT) == 8
    assert search(r"[\p{L}--[a-z]]", "v", "abc") is False


def test_scoped_inline_flag_group_works():
    assert check("(?i:alpha)", "") is None
    assert search("(?i:alpha)", "", TEXT) is True
    assert search("(?i:ALPHA) BETA", "", TEXT) is False  # the scope ends at the group


def test_unicode_property_escape_without_u_is_literal():
    # Without u, \p is an identity escape: the pattern means the literal text "p{L}".
    assert search(r"\p{L}", "", TEXT) is False
    assert search(r"\p{L}", "", "p{L}") is True
    assert search(r"\p{L}", "", "pLL") is False
    assert count(r"\p{L}", "", "p{L} p{L}") == 2
    # With u it is a Unicode property.
    assert search(r"\p{L}", "u", TEXT) is True
    assert search(r"\p{L}", "u", "p{L}") is True
    assert count(r"\p{L}", "u", "123 é") == 1


def test_emoji_with_u_is_one_character():
    assert search("^.$", "u", "😀") is True
    assert search("^.$", "", "😀") is False
    assert search("^..$", "", "😀") is True


def test_search_returns_bool():
    assert search("a", "", TEXT) is True
    assert search("q", "", TEXT) is False


def test_search_with_g_flag_is_fresh_each_time():
    # A fresh regex per call: lastIndex never carries over between calls.
    assert search("aaaa", "g", TEXT) is True
    assert search("aaaa", "g", TEXT) is True


def test_search_and_count_raise_regex_error_on_bad_pattern():
    with pytest.raises(RegexError) as info:
        search("(a", "", TEXT)
    assert str(info.value) == "expecting ')'"
    with pytest.raises(RegexError) as info:
        count("a++", "", TEXT)
    assert str(info.value) == "nothing to repeat"
    assert issubclass(RegexError, ValueError)


def test_bad_flags_raise_regex_error_at_run_time():
    with pytest.raises(RegexError) as info:
        search("a", "uv", TEXT)
    assert "invalid regular expression flags" in str(info.value)
    assert not str(info.value).startswith("SyntaxError")


# ---- check -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, flags, message",
    [
        ("(?i)a", "", "expecting ':'"),
        ("(a", "", "expecting ')'"),
        ("a++", "", "nothing to repeat"),
        ("(?P<x>a)", "", "invalid group"),
        ("(?>a)", "", "invalid group"),
        ("a", "uv", "invalid regular expression flags"),
        ("a", "ii", "invalid regular expression flags"),
        ("a", "z", "invalid regular expression flags"),
    ],
)
def test_check_reports_engine_errors(pattern, flags, message):
    assert check(pattern, flags) == message


@pytest.mark.parametrize(
    "pattern, flags",
    [
        ("(?i:alpha)", ""),
        ("(?<name>a)", ""),
        ("(?<=a)b", ""),
        (r"[\p{L}--[a-z]]", "v"),
        (r"\p{L}", ""),
        (r"\p{L}", "u"),
        ("a", "dgimsuy"),
        ("a", "dgimsvy"),
        ("", ""),
    ],
)
def test_check_accepts_valid_patterns(pattern, flags):
    assert check(pattern, flags) is None


def test_check_default_flags_are_empty():
    assert check("a") is None
    assert check("(a") == "expecting ')'"


# ---- flags_error -----------------------------------------------------------------------------------------


def test_flags_error_accepts_the_flag_alphabet():
    assert ecmaregex.FLAG_CHARS == "dgimsuvy"
    assert flags_error("") is None
    assert flags_error("dgimsuvy") is None
    # Only type and alphabet are checked here: duplicates and u+v are left to the engine.
    assert flags_error("ii") is None
    assert flags_error("uv") is None


@pytest.mark.parametrize("flags", ["z", "I", "gx", " "])
def test_flags_error_rejects_other_characters(flags):
    assert flags_error(flags) == "must be JS RegExp flags (d g i m s u v y)"


@pytest.mark.parametrize("flags", [["g"], None, 1, {"g": True}, True])
def test_flags_error_rejects_non_strings(flags):
    assert flags_error(flags) == "must be a string of JS RegExp flags (d g i m s u v y)"


# ---- compact_json ----------------------------------------------------------------------------------------


def test_compact_json_whole_floats_become_integers():
    assert compact_json(1.0) == "1"
    assert compact_json({"n": 1.0, "m": 2.5, "k": -0.0}) == '{"n":1,"m":2.5,"k":0}'
    assert compact_json([1e21, 1e-7]) == "[1e+21,1e-7]"


def test_compact_json_keeps_non_ascii_raw_and_slash_unescaped():
    assert compact_json({"path": "naïve/café 😀"}) == '{"path":"naïve/café 😀"}'
    assert compact_json("a/b") == '"a/b"'


def test_compact_json_keeps_key_order_and_has_no_spaces():
    assert compact_json({"z": 1, "a": [1, 2, {"y": None, "b": True}]}) == '{"z":1,"a":[1,2,{"y":null,"b":true}]}'
    # JavaScript puts integer-like keys first, in numeric order: the engine decides, not Python.
    assert compact_json({"b": 1, "1": 2}) == '{"1":2,"b":1}'


def test_compact_json_escapes_like_javascript():
    assert compact_json('say "hi"\n\t\\') == '"say \\"hi\\"\\n\\t\\\\"'
    assert compact_json("\u2028") == '"\u2028"'  # JSON.stringify leaves U+2028 raw
    assert compact_json("\x01") == '"\\u0001"'


def test_compact_json_of_a_tool_input():
    assert compact_json({"pattern": "*.py", "path": "src"}) == '{"pattern":"*.py","path":"src"}'


# ---- threads ---------------------------------------------------------------------------------------------


def test_works_from_several_threads_at_once():
    barrier = threading.Barrier(8)

    def work(i: int) -> tuple:
        barrier.wait()
        results = []
        for _ in range(50):
            results.append(
                (
                    count(".", "s", TEXT),
                    count(".", "su", TEXT),
                    search("beta$", "m", TEXT),
                    compact_json({"i": i, "x": 1.0}),
                    check("(a"),
                )
            )
        return tuple(set(results))

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(work, range(8)))
    for i, outcome in enumerate(outcomes):
        assert outcome == ((51, 50, True, f'{{"i":{i},"x":1}}', "expecting ')'"),)


def test_each_thread_gets_its_own_context():
    contexts = []

    def grab():
        ecmaregex.check("a")
        contexts.append(ecmaregex._local.ctx)

    threads = [threading.Thread(target=grab) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(contexts) == 3
    assert len({id(c) for c in contexts}) == 3


def test_catastrophic_backtracking_is_stopped_at_the_cpu_limit(monkeypatch):
    monkeypatch.setattr(ecmaregex, "TIME_LIMIT_SECONDS", 0.2)
    # On a loaded machine 0.2 s of CPU time can take longer than the wall limit: the CPU limit must be the one met.
    monkeypatch.setattr(ecmaregex, "WALL_LIMIT_SECONDS", 120.0)
    monkeypatch.setattr(ecmaregex, "_idle", [])  # engines made afresh, with the limit
    for call in (ecmaregex.search, ecmaregex.count, ecmaregex.find):
        with pytest.raises(ecmaregex.RegexAborted, match=r"^stopped after 0.2 s of CPU time \(the limit\)"):
            call("^(a+)+$", "", "a" * 41 + "b")
    assert ecmaregex.search("^(a+)+$", "", "aaaa") is True  # the engine is usable afterwards
    assert issubclass(ecmaregex.RegexAborted, Exception) and not issubclass(ecmaregex.RegexAborted, ValueError)


def test_catastrophic_backtracking_is_stopped_at_the_wall_time_limit_whatever_the_cpu_time(monkeypatch):
    # A loaded machine gives the engine a fraction of a core: its CPU time grows slower than the clock.
    monkeypatch.setattr(ecmaregex, "TIME_LIMIT_SECONDS", 3.0)  # what the abandoned evaluation still gets
    monkeypatch.setattr(ecmaregex, "WALL_LIMIT_SECONDS", 0.2)
    monkeypatch.setattr(ecmaregex, "_idle", [])
    started = time.monotonic()
    with pytest.raises(ecmaregex.RegexAborted, match=r"^stopped after 0.2 s \(the limit\) — the pattern most likely"):
        ecmaregex.search("^(a+)+$", "", "a" * 41 + "b")
    assert time.monotonic() - started < 3  # not the CPU limit
    assert ecmaregex.search("^(a+)+$", "", "aaaa") is True  # another engine answers


def test_an_engine_serves_match_after_match_and_errors_alike(monkeypatch):
    monkeypatch.setattr(ecmaregex, "_idle", [])
    assert ecmaregex.search("a", "", "a") and ecmaregex.count("a", "g", "aa") == 2
    with pytest.raises(ecmaregex.RegexError):
        ecmaregex.search("(", "", "x")
    assert len(ecmaregex._idle) == 1  # one engine did it all
