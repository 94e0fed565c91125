"""Indexing a site: its pages (HTML or Markdown) into sections, by theme rules, and
the tags a page carries for the panel."""
