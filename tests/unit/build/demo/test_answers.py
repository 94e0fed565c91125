"""The demo endpoint quotes the prompt's sections over the real streaming protocol."""

from __future__ import annotations

import json

from docs_panel.build.demo.answers import DEMO_NOTICE, demo_answer, demo_reply
from docs_panel.build.index_build import build_index
from docs_panel.core.answers import chat_request, plan_answer
from docs_panel.core.config import parse_config
from docs_panel.core.docs_index import Section, load_index
from docs_panel.core.stream import ChatStreamDecoder, ContentDelta, Done

CONFIG = parse_config({}).config
INDEX = load_index(
    build_index(
        [
            Section("/jobs.html#retry", "Jobs", "Retry a job", "Call retry(). It waits first."),
            Section("/jobs.html#cancel", "Jobs", "Cancel a job", "Call cancel() to stop a job."),
        ]
    )
)


def request_for(question: str) -> dict[str, object]:
    return chat_request(plan_answer(INDEX, CONFIG, question, scope_id=None), CONFIG, None)


def test_answer_quotes_the_numbered_sections_with_their_citations() -> None:
    """Each quoted section carries its prompt number, after the demo label."""
    answer = demo_answer(request_for("retry a job")["messages"])  # type: ignore[arg-type]
    assert answer.startswith(DEMO_NOTICE)
    assert "**Retry a job.** Call retry(). It waits first. [1]" in answer


def test_a_prompt_without_sections_gets_a_plain_reply() -> None:
    """No sections in the prompt: the demo says it has nothing to quote."""
    answer = demo_answer([{"role": "user", "content": "hi"}])
    assert answer.startswith(DEMO_NOTICE) and "nothing to quote" in answer


def test_reply_streams_the_answer_in_the_chat_completions_protocol() -> None:
    """The stream decodes, with the panel's own decoder, to exactly the answer, then [DONE]."""
    body = request_for("cancel a job")
    reply = demo_reply(json.dumps(body).encode(), delay_s=0)
    assert reply.status == 200 and reply.content_type.startswith("text/event-stream")
    decoder = ChatStreamDecoder()
    deltas = [d for chunk in reply.chunks for d in decoder.feed(chunk)] + decoder.close()
    text = "".join(d.text for d in deltas if isinstance(d, ContentDelta))
    assert text == demo_answer(body["messages"])  # type: ignore[arg-type]
    assert deltas[-1] == Done()


def test_bad_request_is_a_json_error() -> None:
    """A body that is not a chat request gets HTTP 400 and an OpenAI-style error."""
    for body in (b"nope", b"{}", b'{"messages": "x"}', b'{"messages": [1]}'):
        reply = demo_reply(body)
        assert reply.status == 400
        assert "messages" in json.loads(b"".join(reply.chunks))["error"]["message"]
