"""The server install: rate limits, the votes store and the app that answers."""
