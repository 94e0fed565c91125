"""The shell's entry script (MicroPython, main thread).

embed.js loads this as ``<script type="mpy">`` with the shell's modules unpacked
next to it, after drawing the launcher; it hands over through ``window.__docsPanel``.
"""

from shell.panel import Panel

Panel().start()
