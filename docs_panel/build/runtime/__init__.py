"""Packaging the runtimes: Pyodide, MicroPython and PyScript as the panel ships them
(with the Pyodide edits), the panel's own code, and the archive the wheel carries."""
