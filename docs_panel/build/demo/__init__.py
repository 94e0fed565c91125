"""The demo: site_demo's Markdown as pages, and its answers without a model."""
