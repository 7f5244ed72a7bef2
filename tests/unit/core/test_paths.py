"""The shared path helpers: containment with symlinks followed, and JavaScript's string order."""

from __future__ import annotations

import os

from pytest_plugin_eval.core.paths import code_units, inside


def test_inside_accepts_the_root_and_what_lies_below_it(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert inside(tmp_path / "a", tmp_path / "a")
    assert inside(tmp_path / "a" / "b" / "missing.txt", tmp_path / "a")


def test_inside_refuses_a_sibling_sharing_the_prefix(tmp_path):
    (tmp_path / "ab").mkdir()
    assert not inside(tmp_path / "ab", tmp_path / "a")


def test_inside_follows_symlinks_both_ways(tmp_path):
    (tmp_path / "suite").mkdir()
    (tmp_path / "outside.txt").write_text("secret")
    os.symlink(tmp_path / "outside.txt", tmp_path / "suite" / "link.txt")
    assert not inside(tmp_path / "suite" / "link.txt", tmp_path / "suite")
    os.symlink(tmp_path / "suite", tmp_path / "alias")
    assert inside(tmp_path / "alias" / "x", tmp_path / "suite")


def test_inside_the_filesystem_root():
    assert inside("/etc", "/")


def test_code_units_sort_astral_characters_before_high_bmp_ones():
    # U+1F600 is D83D DE00 in UTF-16, which sorts before U+FF5E; code points would order them the other way.
    names = ["\uff5e.md", "\U0001f600.md"]
    assert sorted(names, key=code_units) == ["\U0001f600.md", "\uff5e.md"]
    assert sorted(names) == ["\uff5e.md", "\U0001f600.md"]


def test_code_units_sort_undecodable_file_names():
    undecodable = os.fsdecode(b"caf\xe9.md")  # a Latin-1 name on a UTF-8 file system: a lone surrogate
    assert sorted([undecodable, "a.md"], key=code_units) == ["a.md", undecodable]
