"""What several test files build from: plugin folders with eval cases (`plugin`, `e2e`), results documents
(`documents`), fakes of pytest's and the judge's objects (`fakes`) and the mock stand-in's configuration
(`stand_in`). Imported as `helpers.…`: pytest puts tests/ on sys.path (`pythonpath` in pyproject.toml)."""
