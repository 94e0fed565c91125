"""The panel's decisions that only CPython runs (the worker in Pyodide, the server
install and the build), as pure Python: values in, values out.

Nothing here imports ``js``, ``pyodide`` or ``pyscript``: the worker calls these
functions and does the I/O (the sans-I/O style of h11), so every rule is
unit-tested in CPython. The decisions the MicroPython shell runs too are in
``docs_panel.portable``, which this package imports and never the reverse::

    >>> from docs_panel.core.config import parse_config
    >>> parse_config({"chat": False}).config.chat
    False
"""
