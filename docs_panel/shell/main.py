"""The shell's entry script (MicroPython, main thread).

embed.js loads this as ``<script type="mpy">`` after drawing the launcher and
fetches the shell's modules meanwhile, as one JSON object of sources by path
(``bridge.shellFiles``); this writes them out beside it, then starts the panel.
It hands over through ``window.__docsPanel``.
"""

import asyncio
import json
import os

import js  # not pyscript's window: importing pyscript is the panel's import task's work


def unpack(files):
    """Write ``{"docs_panel/shell/panel.py": "source", ...}`` under the current folder."""
    folders = set()
    for path, source in files.items():
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder not in folders:
                folders.add(folder)
                try:
                    os.mkdir(folder)
                except OSError:  # already there: a second panel script, or a reload
                    pass
        with open(path, "w") as file:
            file.write(source)


async def main():
    # The interpreter's start, the shell's imports and the first draw are a task each:
    # run as one, they held the page for 130-220 ms (contract §9: none over 100 ms).
    # MicroPython's asyncio runs every ready task in the same JS task, sleep(0) too;
    # a timer, however short, hands the page back first.
    bridge = js.window.__docsPanel
    # The loader broadcasts signs of its progress; the shell's watch on the worker's
    # start (client.py) reads the time of the latest, from the worker's first on.
    bridge.signed = 0
    progress = js.BroadcastChannel.new("docs-panel:start")
    progress.onmessage = lambda event: setattr(bridge, "signed", js.performance.now())
    bridge.worker = bridge.startWorker()  # Pyodide's start, after MicroPython's (embed.js)
    try:
        files = await bridge.shellFiles
    except Exception:  # embed.js tells the reader (PyScript would tell the page)
        return
    unpack(json.loads(files))
    await asyncio.sleep_ms(1)  # type: ignore[attr-defined]  # MicroPython's own
    from docs_panel.shell.panel import Panel

    await asyncio.sleep_ms(1)  # type: ignore[attr-defined]  # MicroPython's own
    Panel().start()


asyncio.create_task(main())  # noqa: RUF006 (MicroPython's loop holds its tasks)
