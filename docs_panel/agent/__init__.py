"""Docs for agents: the index behind MCP tools (issue 45)."""
