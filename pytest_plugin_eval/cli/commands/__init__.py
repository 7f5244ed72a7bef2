"""One module per `plugin-eval` command: its parser, one call into the package, what it prints, its exit status."""
