"""Docs for agents: the docs index behind MCP tools, on stdio and in the server install."""
