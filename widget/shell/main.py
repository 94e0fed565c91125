"""The shell's entry script (MicroPython, main thread).

embed.js loads this as ``<script type="mpy">`` with the shell's modules unpacked
next to it, after drawing the launcher; it hands over through ``window.__docsPanel``.
"""

import asyncio


async def main():
    # The interpreter's start, the shell's imports and the first draw are a task each:
    # run as one, they held the page for 130-220 ms (DESIGN 9: none over 100 ms).
    await asyncio.sleep(0)
    from shell.panel import Panel

    await asyncio.sleep(0)
    Panel().start()


asyncio.create_task(main())  # noqa: RUF006 (MicroPython's loop holds its tasks)
