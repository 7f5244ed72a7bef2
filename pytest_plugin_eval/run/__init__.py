"""Running the agent once: a throwaway workspace, the tool grants and the sandbox, the real `claude -p` child and
its MCP stand-ins, the transcript it streams, and the artefacts kept of it."""
