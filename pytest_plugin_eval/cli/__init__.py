"""`plugin-eval`: the reference tool's command line on top of the pytest machinery, and its subcommands."""
