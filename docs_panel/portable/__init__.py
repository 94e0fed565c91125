"""The panel's decisions that run in every runtime, the MicroPython shell included.

The shell imports nothing of ``docs_panel`` but these modules and its own; the
build ships this folder whole beside the shell. So everything here is written in
the Python MicroPython has (no ``dataclasses``, ``typing`` at run time, ``re``
beyond its subset or ``contextlib``), and it never imports ``docs_panel.core``.
"""
