"""The answer's lifecycle: every transition of the table, and the stories it must tell."""

from __future__ import annotations

import json
from itertools import product

import pytest

from docs_panel.portable.errors import LifecycleError
from docs_panel.portable.lifecycle import (
    ASK,
    ASKING,
    BOOTING,
    CHECKPOINT_S,
    COLD_START,
    FIRST_SIGN_S,
    IDLE,
    OUTCOMES,
    QUIET_S,
    SETTLED,
    START_TRANSITIONS,
    STARTED,
    STOPPING,
    STREAMING,
    STUCK,
    TRANSITIONS,
    UNAVAILABLE,
    WAITING,
    WARM_START,
    Lifecycle,
    StartWatch,
)

# The table as contract §3 and docs/architecture.md tell the stories, written out by hand so that
# a wrong entry in TRANSITIONS fails here: state, then "event → next" for each event
# it takes (every other event raises).
EXPECTED_TABLE = """
booting     ask→waiting ready→idle discard→booting stop→booting broken→unavailable
waiting     ask→waiting ready→idle discard→booting stop→waiting broken→unavailable
unavailable ask→unavailable discard→unavailable stop→unavailable
idle        ask→asking discard→idle stop→idle
asking      ask→asking stream→streaming results→settled failed→settled stop→stopping
            discard→asking
streaming   ask→streaming update→streaming stop→stopping end_done→settled
            end_error→settled discard→streaming
stopping    ask→stopping stream→stopping results→settled failed→settled update→stopping
            stop→stopping end_done→settled end_error→settled discard→stopping
settled     ask→settled stop→settled stored→idle discard→settled
"""
EXPECTED_OUTCOMES = {
    ("streaming", "end_done"): "done",
    ("streaming", "end_error"): "failed",
    ("stopping", "end_done"): "done",
    ("stopping", "end_error"): "stopped",
}


def expected_transitions() -> dict[tuple[str, str], str]:
    table: dict[tuple[str, str], str] = {}
    state = ""
    for line in EXPECTED_TABLE.strip().splitlines():
        words = line.split()
        if not line.startswith(" "):
            state = words.pop(0)
        for move in words:
            event, after = move.split("→")
            table[(state, event)] = after
    return table


EXPECTED = expected_transitions()
STATES = sorted({state for state, _ in EXPECTED} | set(EXPECTED.values()))
EVENTS = sorted({event for _, event in EXPECTED})
IN_FLIGHT = json.dumps({"question": "how do I retry?", "status": "stopped", "answer": ""})


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def at(state: str, clock: Clock | None = None) -> Lifecycle:
    answer = Lifecycle(clock=clock or Clock())
    answer.state = state
    return answer


def test_the_table_is_the_one_the_stories_tell() -> None:
    """TRANSITIONS and OUTCOMES hold exactly the hand-written entries, no more, no fewer."""
    assert {k: v for k, v in TRANSITIONS.items() if EXPECTED.get(k) != v} == {}
    assert sorted(set(EXPECTED) - set(TRANSITIONS)) == []
    assert OUTCOMES == EXPECTED_OUTCOMES


@pytest.mark.parametrize(("state", "event"), sorted(EXPECTED))
def test_each_allowed_event_moves_where_the_stories_say(state: str, event: str) -> None:
    """Every (state, event) of the expected table leads to its expected state."""
    assert at(state).handle(event) == EXPECTED[(state, event)]


@pytest.mark.parametrize(
    ("state", "event"), [p for p in product(STATES, EVENTS) if p not in EXPECTED]
)
def test_each_other_event_raises_and_leaves_the_state(state: str, event: str) -> None:
    """An event the table does not allow raises at once and changes nothing."""
    answer = at(state)
    with pytest.raises(LifecycleError, match=f"{state} cannot take {event}"):
        answer.handle(event)
    assert answer.state == state


def streaming(clock: Clock | None = None) -> Lifecycle:
    answer = at(IDLE, clock)
    assert answer.ask("q")
    assert answer.started(streaming=True, in_flight=IN_FLIGHT) is False
    return answer


def test_a_results_answer_settles_then_idles() -> None:
    """Search results: asked, settled at once, idle once stored."""
    answer = at(IDLE)
    assert answer.ask("q")
    answer.started(streaming=False)
    assert answer.state == SETTLED
    answer.stored()
    assert answer.state == IDLE


def test_a_streamed_answer_ends_done() -> None:
    """The model's last token: the answer is done."""
    answer = streaming()
    answer.update("Retry with [1].")
    assert answer.end(failed=False) == "done"
    assert answer.state == SETTLED


def test_a_stream_that_fails_gives_results() -> None:
    """An error mid-answer (no Stop) makes the turn search results."""
    assert streaming().end(failed=True) == "failed"


def test_stop_aborts_once_and_the_abort_ends_stopped() -> None:
    """Stop aborts the request; a second Stop has nothing to do; the end is "stopped"."""
    answer = streaming()
    assert answer.stop() is True
    assert answer.stop() is False
    assert answer.state == STOPPING
    assert answer.end(failed=True) == "stopped"


def test_stop_after_the_last_token_keeps_the_whole_answer() -> None:
    """Stop pressed as the stream finished: it ended by itself, so the answer is done."""
    answer = streaming()
    answer.stop()
    assert answer.end(failed=False) == "done"
    assert answer.stop() is False  # and once settled, Stop is a no-op
    assert answer.state == SETTLED


def test_stop_before_the_stream_begins_stops_it_at_once() -> None:
    """New chat while the worker plans: the stream, once started, is stopped right away."""
    answer = at(IDLE)
    answer.ask("q")
    assert answer.stop() is False  # nothing to abort yet
    assert answer.started(streaming=True, in_flight=IN_FLIGHT) is True
    assert answer.end(failed=True) == "stopped"


@pytest.mark.parametrize("state", [ASKING, STREAMING, STOPPING, SETTLED])
def test_new_chat_open_or_delete_mid_answer_drop_waiting_questions(state: str) -> None:
    """Settling mid-answer drops the questions that waited; the answer itself still ends."""
    answer = at(state)
    answer.ask("waiting")
    answer.discard()
    assert answer.state == state
    assert answer.next_question() is None


def test_questions_wait_for_the_worker_then_go_in_order() -> None:
    """Asked while booting: they wait, and go one at a time once the worker is up."""
    answer = Lifecycle(clock=Clock())
    assert answer.ask("first") is False
    assert answer.ask("second") is False
    assert answer.state == WAITING
    answer.ready()
    assert answer.next_question() == "first"
    assert answer.next_question() is None  # the first is under way
    answer.started(streaming=False)
    answer.stored()
    assert answer.next_question() == "second"


@pytest.mark.parametrize("state", [ASKING, STREAMING, STOPPING, SETTLED])
def test_only_an_idle_answer_starts_a_question_at_once(state: str) -> None:
    """A question asked in any state under way waits; two answers never run at once."""
    answer = at(state)
    assert answer.ask("next") is False
    assert answer.state == state


def test_a_question_asked_mid_answer_waits_its_turn() -> None:
    """Asked while an answer streams: answered after it, never dropped."""
    answer = streaming()
    assert answer.ask("next") is False
    assert answer.state == STREAMING
    answer.end(failed=False)
    answer.stored()
    assert answer.next_question() == "next"
    assert answer.state == ASKING


def test_new_chat_while_booting_drops_the_waiting_questions() -> None:
    """Questions that waited for the worker are gone after New chat."""
    answer = Lifecycle(clock=Clock())
    answer.ask("q")
    answer.discard()
    assert answer.state == BOOTING
    answer.ready()
    assert answer.next_question() is None


def test_a_worker_that_cannot_start_hands_back_what_waited_and_takes_no_more() -> None:
    """Broken while questions wait: they come back once, and later ones never wait."""
    answer = Lifecycle(clock=Clock())
    answer.ask("first")
    answer.ask("second")
    assert answer.broken() == ["first", "second"]
    assert answer.state == UNAVAILABLE
    assert answer.ask("third") is False
    answer.discard()
    assert answer.stop() is False
    assert answer.next_question() is None
    assert answer.state == UNAVAILABLE


def test_checkpoints_follow_the_clock_and_new_text() -> None:
    """A checkpoint is due CHECKPOINT_S after the last, and only when text came since."""
    clock = Clock()
    answer = streaming(clock)
    assert answer.update("Retry") is False  # too soon
    clock.now += CHECKPOINT_S
    assert answer.update("") is True  # a stalled stream still checkpoints what came
    clock.now += CHECKPOINT_S
    assert answer.update("") is False  # nothing new since
    assert answer.update(" it") is True
    answer.stop()
    clock.now += CHECKPOINT_S
    assert answer.update(" more") is False  # stopping: the end stores it


def test_leaving_mid_stream_keeps_the_answer_so_far() -> None:
    """pagehide mid-answer: the session is marked left and carries the text so far."""
    answer = streaming()
    answer.update("Retry ")
    answer.update("with [1].")
    value = json.loads(answer.leaving('{"id": "c1", "left": false}', True, True))
    assert value["left"] is True and value["open"] is True and value["id"] == "c1"
    assert value["inflight"]["answer"] == "Retry with [1]."
    assert value["inflight"]["question"] == "how do I retry?"


def test_leaving_after_the_answer_ended_keeps_no_answer() -> None:
    """pagehide once the stream has ended: nothing is in flight any more."""
    answer = streaming()
    answer.update("Retry.")
    answer.end(failed=False)
    value = json.loads(answer.leaving('{"id": "c1", "left": false}', False, True))
    assert "inflight" not in value and value["open"] is False


def test_leaving_with_save_on_unload_off_keeps_no_answer() -> None:
    """history.saveOnUnload false: the answer streaming when the page leaves is not kept."""
    answer = streaming()
    answer.update("Retry.")
    assert "inflight" not in json.loads(answer.leaving('{"id": "c1"}', True, False))


def test_a_question_is_never_refused() -> None:
    """Every state takes ASK: the question starts or waits its turn, it is never lost."""
    assert {state for state, event in EXPECTED if event == ASK} == set(STATES)
    assert all(at(state).handle(ASK) for state in STATES)


# The worker's start, watched: the whole table, by hand, as above.
EXPECTED_START = {
    ("warm_start", "sign"): "warm_start",
    ("warm_start", "up"): "started",
    ("warm_start", "quiet"): "cold_start",
    ("cold_start", "sign"): "cold_start",
    ("cold_start", "up"): "started",
    ("cold_start", "quiet"): "stuck",
}
START_STATES = sorted({s for s, _ in EXPECTED_START} | set(EXPECTED_START.values()))
START_EVENTS = sorted({e for _, e in EXPECTED_START})


def watch_at(state: str, clock: Clock) -> StartWatch:
    watch = StartWatch(clock=clock)
    watch.state = state
    return watch


def test_the_start_table_is_the_one_the_stories_tell() -> None:
    assert START_TRANSITIONS == EXPECTED_START


@pytest.mark.parametrize(
    ("state", "event"), [p for p in product(START_STATES, START_EVENTS) if p in EXPECTED_START]
)
def test_each_start_event_moves_where_the_table_says(state: str, event: str) -> None:
    assert watch_at(state, Clock()).handle(event) == EXPECTED_START[(state, event)]


@pytest.mark.parametrize(
    ("state", "event"),
    [p for p in product(START_STATES, START_EVENTS) if p not in EXPECTED_START],
)
def test_each_other_start_event_raises_and_leaves_the_state(state: str, event: str) -> None:
    watch = watch_at(state, Clock())
    with pytest.raises(LifecycleError, match=f"{state} cannot take {event}"):
        watch.handle(event)
    assert watch.state == state


def test_a_start_with_no_sign_at_all_is_made_again_cold_then_given_up() -> None:
    """No sign within FIRST_SIGN_S: start again cold; the cold one gets as long again."""
    clock = Clock()
    watch = StartWatch(clock=clock)
    clock.now += FIRST_SIGN_S - 0.1
    assert watch.check() == WARM_START
    clock.now += 0.1
    assert watch.check() == COLD_START
    clock.now += FIRST_SIGN_S - 0.1
    assert watch.check() == COLD_START  # its clock started at the restart
    clock.now += 0.1
    assert watch.check() == STUCK
    assert watch.check() == STUCK  # and stays so


def test_signs_keep_a_slow_start_going_and_up_ends_the_watch() -> None:
    """A start that keeps showing signs is never ended, however long it takes in all;
    after a first sign, it may be quiet for QUIET_S (Python's own start)."""
    clock = Clock()
    watch = StartWatch(clock=clock)
    for _ in range(10):
        clock.now += FIRST_SIGN_S - 1
        watch.sign()
        assert watch.check() == WARM_START
    clock.now += QUIET_S - 0.1
    assert watch.check() == WARM_START
    watch.up()
    clock.now += 10 * QUIET_S
    assert watch.check() == STARTED
    watch.sign()  # a late sign changes nothing
    assert watch.state == STARTED


def test_a_start_quiet_too_long_after_its_first_sign_is_made_again_cold() -> None:
    clock = Clock()
    watch = StartWatch(clock=clock)
    watch.sign()
    clock.now += QUIET_S
    assert watch.check() == COLD_START
    clock.now += FIRST_SIGN_S - 0.1  # the cold start has not signed yet: the short limit
    watch.sign()
    clock.now += QUIET_S - 0.1
    assert watch.check() == COLD_START
    watch.up()
    assert watch.state == STARTED


def test_the_first_sign_comes_sooner_than_python_may_be_quiet() -> None:
    assert 0 < FIRST_SIGN_S < QUIET_S
