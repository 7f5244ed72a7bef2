"""Reading a suite from disk, before anything runs: the plugin under test and its eval dirs, each case folder
(prompt.md, case.yaml, graders, mocks, scripted.yaml), with every problem named by file and key."""
