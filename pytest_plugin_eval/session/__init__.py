"""The pytest side: options shared with the CLI and the rules they make of a case (rules.py), the session state
on `config` (state.py: collection and running, with its resources, model endpoints, document descriptions and
notices beside it), collection into items (collect.py), the run of one item, the controller that gathers reports
(controller.py → gather.py), builds the documents (documents.py) and writes them (outputs.py), the fixtures, and
what travels on reports between them (wire.py)."""
