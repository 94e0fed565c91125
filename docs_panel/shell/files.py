"""Files the reader saves or picks (MicroPython): an export downloaded, an import read.

await download(root, "docs-panel-docs.example.org-2026-12-07.json", text)
text = await read_chosen(picker)        # None: no file, or one too big to read
"""

import asyncio

import js
from pyscript import window
from pyscript.ffi import to_js

from docs_panel.portable.protocol import IMPORT_FILE_LIMIT
from docs_panel.shell.dom import h

URL_KEPT_S = 10  # the object URL outlives the click long enough for the download to start


async def download(root, name, text):
    """Save ``text`` as the file ``name`` (the browser's download, no dialog of ours)."""
    blob = js.Blob.new(to_js([text]), to_js({"type": "application/json"}))
    url = js.URL.createObjectURL(blob)
    link = h("a", {"href": url, "download": name, "hidden": True})
    root.append(link)
    link.click()
    link.remove()
    await asyncio.sleep(URL_KEPT_S)
    js.URL.revokeObjectURL(url)


async def read_chosen(picker):
    """The text of the file picked in ``picker`` (then cleared, so the same file can be
    picked again); None when there is none or it is far too big to be an export."""
    files = picker.files
    chosen = files.item(0) if files and files.length else None
    picker.value = ""
    if chosen is None:
        return None
    if chosen.size > IMPORT_FILE_LIMIT * 4:  # UTF-8 takes at most 4 bytes a character
        window.console.warn("docs-panel: import: the file is too big to be an export")
        return ""  # the worker refuses it as not an export, with its one message
    return await chosen.text()
