"""The pytest side: options shared with the CLI, the session state on `config`, collection into items, the
run of one item, the controller that gathers reports and writes results, the fixtures, and what travels on
reports between them."""
