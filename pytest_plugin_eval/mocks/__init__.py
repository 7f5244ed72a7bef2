"""Stand-in MCP servers that answer a plugin's tool calls from the suite's mock files during eval runs."""
