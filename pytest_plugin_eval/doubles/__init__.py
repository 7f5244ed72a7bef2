"""The offline doubles: the scripted Anthropic endpoint (answers from scripted.yaml) and the stand-in MCP server
(answers from mock files). Each runs on its own — a thread or a child process — and talks over the wire."""
