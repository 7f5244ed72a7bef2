"""`--apply`'s rewrite: the description's value only, every other byte of SKILL.md kept."""

from __future__ import annotations

import pytest

from pytest_plugin_eval.tune.apply import MAX_DESCRIPTION, ApplyError, rewrite_description

BODY = "\n# Commit messages\n\nWrite them: with a description: in the body too.\n"


def test_plain_value_replaced_rest_kept():
    text = "---\nname: commit\ndescription: Old words\nallowed-tools: Read\n---" + BODY
    out = rewrite_description(text, "Write commit messages for staged changes")
    assert out == (
        "---\nname: commit\ndescription: Write commit messages for staged changes\nallowed-tools: Read\n---" + BODY
    )


def test_multi_line_value_becomes_one_line_and_comments_elsewhere_kept():
    text = (
        "---\n# the skill's card\nname: commit\ndescription: >\n  Folded old\n  words here.\n\n"
        "# tools it may use\nallowed-tools: Read\n---" + BODY
    )
    out = rewrite_description(text, "New: words")
    assert out == (
        '---\n# the skill\'s card\nname: commit\ndescription: "New: words"\n\n# tools it may use\n'
        "allowed-tools: Read\n---" + BODY
    )


def test_quoted_value_with_comment_and_crlf():
    text = "---\r\nname: x\r\ndescription: 'It''s old' # keep me\r\n---\r\nbody\r\n"
    out = rewrite_description(text, "Fresh text")
    assert out == "---\r\nname: x\r\ndescription: Fresh text  # keep me\r\n---\r\nbody\r\n"


def test_continued_plain_value():
    text = "---\ndescription: first line\n  second line\nname: x\n---\n"
    assert rewrite_description(text, "one") == "---\ndescription: one\nname: x\n---\n"


def test_missing_description_is_added_before_the_close():
    assert rewrite_description("---\nname: x\n---\nb\n", "New") == "---\nname: x\ndescription: New\n---\nb\n"


def test_quoting_reads_back_the_same():
    from pytest_plugin_eval.core.yamlio import load_yaml

    for words in ("Use when: asked", "#hash first", "ends with colon:", 'a "quote" and \\ slash', "- dash"):
        out = rewrite_description("---\ndescription: x\n---\n", words)
        assert load_yaml(out.split("---\n")[1])["description"] == words


@pytest.mark.parametrize(
    ("text", "description", "message"),
    [
        ("no frontmatter\n", "x", "no frontmatter"),
        ("---\nname: x\n", "x", "never closed"),
        ("---\ndescription: a\n---\n", " ", "empty"),
        ("---\ndescription: a\n---\n", "w" * (MAX_DESCRIPTION + 1), "at most 1024"),
    ],
)
def test_refusals(text, description, message):
    with pytest.raises(ApplyError, match=message):
        rewrite_description(text, description)
