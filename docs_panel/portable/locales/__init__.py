"""One module per UI language, each holding ``STRINGS``: every word the panel shows,
by stable key. ``docs_panel.portable.i18n`` picks one; ``en`` is the reference the others
must match key for key and placeholder for placeholder."""
