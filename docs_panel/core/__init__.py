"""The panel's decisions, as pure Python: values in, values out.

Nothing here imports ``js``, ``pyodide`` or ``pyscript``: the worker calls these
functions and the shell does the I/O (the sans-I/O style of h11), so every rule
is unit-tested in CPython::

    >>> from docs_panel.core.config import parse_config
    >>> parse_config({"chat": False}).config.chat
    False
"""
