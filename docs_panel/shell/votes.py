"""The votes under each finished answer: "Helpful" / "Not helpful" (MicroPython).

A vote goes to the worker, which puts it on the turn, sends it when
``feedback.send`` allows and returns the feedback log to store; then the archive
is written too (the vote is part of the turn). "Not helpful" opens reasons to
tick, a textbox "What was wrong?" and "Send feedback", which votes again with
them (the same vote, now with reasons). Pressing the pressed button takes the
vote back::

    votes = Votes(keeper, spawn, events)
    votes.reasons = started.reasons          # from the worker, once it is up
    article.append(votes.bar(turn))
"""

from docs_panel.portable.caps import SENTENCE_CHARS
from docs_panel.shell.dom import h, listen
from docs_panel.shell.words import say

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from docs_panel.shell.records import Feedback, Turn


class Votes:
    def __init__(self, keeper, spawn, events):
        self.keeper = keeper
        self.spawn = spawn
        self.events = events
        self.reasons = []  # the ids of the reasons to offer, from the worker

    def bar(self, turn: "Turn"):
        """The vote buttons and the (hidden) reasons form for ``turn``."""
        up = h(
            "button", {"class": "vote", "type": "button", "aria-pressed": "false"}, say("helpful")
        )
        down = h(
            "button",
            {"class": "vote", "type": "button", "aria-pressed": "false"},
            say("not_helpful"),
        )
        checks = []
        fieldset = h("fieldset", {"class": "reasons"}, h("legend", None, say("reasons")))
        for reason in self.reasons:
            box = h("input", {"type": "checkbox", "value": reason})
            checks.append(box)
            fieldset.append(h("label", None, box, say("reason_" + reason)))
        sentence = h(
            "textarea",
            {
                "rows": "2",
                "aria-label": say("what_was_wrong"),
                "placeholder": say("what_was_wrong_placeholder"),
                "dir": "auto",
                "maxlength": str(SENTENCE_CHARS),
            },
        )
        send = h("button", {"class": "text primary", "type": "submit"}, say("send_feedback"))
        form = h("form", {"class": "why", "hidden": True}, fieldset, sentence, send)
        thanks = h("p", {"class": "thanks", "role": "status"})
        parts = (up, down, form, checks, sentence, thanks)
        self._show(parts, turn.feedback)

        def vote(value, reasons="", text=""):
            self.spawn(self._vote(turn.key, value, reasons, text, parts))

        def on_up(event):
            vote("" if up.getAttribute("aria-pressed") == "true" else "up")

        def on_down(event):
            vote("" if down.getAttribute("aria-pressed") == "true" else "down")

        def on_send(event):
            event.preventDefault()
            ticked = ",".join(box.value for box in checks if box.checked)
            vote("down", ticked, sentence.value)

        listen(up, "click", on_up)
        listen(down, "click", on_down)
        listen(form, "submit", on_send)
        return h("div", {"class": "votes"}, h("div", {"class": "vote-row"}, up, down), form, thanks)

    async def _vote(self, key, value, reasons, sentence, parts):
        voted = await self.keeper.write(
            "vote", stored="feedback", key=key, vote=value, reasons=reasons, sentence=sentence
        )
        self._show(parts, voted.feedback, opened=value == "down" and not reasons + sentence)
        self.events.emit("vote", {"turn": key, "vote": voted.feedback.vote or "none"})
        if value == "down" and reasons + sentence:
            parts[5].textContent = say("feedback_thanks")
        await self.keeper.persist()

    def _show(self, parts, feedback: "Feedback", opened=False):
        """Buttons and form as the vote now stands; ``opened``: a fresh "Not helpful"."""
        up, down, form, checks, sentence, thanks = parts
        up.setAttribute("aria-pressed", "true" if feedback.vote == "up" else "false")
        down.setAttribute("aria-pressed", "true" if feedback.vote == "down" else "false")
        for box in checks:
            box.checked = box.value in feedback.reasons
        sentence.value = feedback.sentence
        if not opened and form.isConnected and form.contains(form.getRootNode().activeElement):
            down.focus()  # the form goes away from under the reader's focus
        form.hidden = not opened
        thanks.textContent = ""
        if opened:
            (checks[0] if checks else sentence).focus()
            form.scrollIntoView(False)  # down to "Send feedback", not just the first box
