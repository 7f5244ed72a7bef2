"""The stand-in MCP server and what it needs: expect: guards and answer templates."""
