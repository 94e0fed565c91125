"""Starting the panel's worker and picking up where this tab left off (MicroPython).

``boot`` runs once the panel is drawn: it starts the worker (config, index), then
restores this tab's conversation, draft and instruction, and lets the questions
asked meanwhile be answered::

    panel.spawn(boot(panel))
"""

import asyncio

from pyscript import window

from docs_panel.shell.client import reason
from docs_panel.shell.words import say


async def boot(panel):
    # Let the panel paint before Pyodide's start-up work competes for the main thread.
    await asyncio.sleep(0.05)
    try:
        started = await panel.client.start(
            panel.bridge.urls,
            config=panel.bridge.config,
            index_url=panel.bridge.urls.index,
            page_url=window.location.href,
            page_language=window.document.documentElement.lang or "",
            consent=panel.keeper.get("consent"),
        )
    except Exception as err:  # the panel must say so, not hang on a progress bar
        window.console.error("docs-panel: " + say("start_failed"), reason(err))
        panel.progress.remove()
        panel.booted.set()
        panel.answering.unavailable()
        return
    for message in started.errors:
        window.console.error(message)
    panel.events.with_text = started.events_text
    panel.composer.set_scopes(started.scopes)
    panel.booted.set()  # the page API's open({scope}) can check it now
    panel.votes.reasons = started.reasons
    panel.keeper.configure(started)
    panel.consent.offer(started.consent)
    panel.settings.restore()
    if panel.keeper.record:
        await restore(panel)
    panel.privacy.ready(panel.keeper.record)  # before the progressbar goes: ready means ready
    panel.progress.remove()
    panel.history.button.disabled = False
    panel.started.set()
    panel.answering.ready()


async def restore(panel):
    conversation, draft = await panel.keeper.restore()
    if draft and not panel.composer.input.value:
        panel.composer.set_text(draft)
    if conversation is not None:
        waiting = list(panel.thread.querySelectorAll("article"))  # asked meanwhile
        panel.show_conversation(conversation)
        for article in waiting:
            panel.thread.append(article)
