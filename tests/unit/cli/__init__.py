"""Unit tests of pytest_plugin_eval.cli (a package, so that test_init.py here and tests/acceptance/test_init.py can be
collected in one session)."""
