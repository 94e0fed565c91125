"""Puts that arrive while a commit runs share the next one."""

import asyncio

import pytest

from docs_panel.server.report_shape import Report, parse_report
from docs_panel.server.votes.sql import MAX_BATCH, GroupCommit, Row, VotesError
from tests.event_loops import on_own_loop
from tests.server.vote_writer import vote_body


class Disk:
    """A write that takes a turn of the event loop, recording each batch."""

    def __init__(self, fail: bool = False) -> None:
        self.batches: list[list[str]] = []
        self.fail = fail

    async def write(self, rows: list[Row]) -> None:
        await asyncio.sleep(0)
        if self.fail:
            raise VotesError("votes database: disk full")
        self.batches.append([r[0] for r in rows])


def report(n: int) -> Report:
    return parse_report(vote_body(n, "up", n))


def test_puts_waiting_for_a_commit_share_the_next() -> None:
    disk = Disk()

    async def run() -> None:
        commits = GroupCommit(disk.write)
        first = asyncio.ensure_future(commits.put(report(0)))
        await asyncio.sleep(0)  # its commit starts
        await asyncio.gather(first, *(commits.put(report(n)) for n in range(1, 600)))

    on_own_loop(run())
    assert [len(b) for b in disk.batches] == [1, MAX_BATCH, MAX_BATCH, 599 - 2 * MAX_BATCH]
    assert [i for b in disk.batches for i in b] == [f"vote-{n}" for n in range(600)]


def test_a_put_returns_only_after_its_commit() -> None:
    disk = Disk()

    async def run() -> None:
        commits = GroupCommit(disk.write)
        await commits.put(report(7))
        assert disk.batches == [["vote-7"]]

    on_own_loop(run())


def test_a_failed_commit_fails_each_of_its_puts_and_the_next_one_works() -> None:
    disk = Disk(fail=True)

    async def run() -> list[BaseException | None]:
        commits = GroupCommit(disk.write)
        failed = await asyncio.gather(
            *(commits.put(report(n)) for n in range(3)),
            return_exceptions=True,
        )
        disk.fail = False
        await commits.put(report(9))
        return failed

    failed = on_own_loop(run())
    assert [str(f) for f in failed] == ["votes database: disk full"] * 3
    assert disk.batches == [["vote-9"]]


def test_finish_waits_for_every_put_so_far() -> None:
    disk = Disk()

    async def run() -> None:
        commits = GroupCommit(disk.write)
        puts = [asyncio.ensure_future(commits.put(report(n))) for n in range(5)]
        await asyncio.sleep(0)
        await commits.finish()
        assert sum(map(len, disk.batches)) == 5
        await asyncio.gather(*puts)

    on_own_loop(run())


@pytest.mark.parametrize("error", [RuntimeError("bug"), OSError("io")])
def test_an_unexpected_error_is_a_votes_error(error: Exception) -> None:
    async def write(rows: list[Row]) -> None:
        raise error

    async def run() -> None:
        await GroupCommit(write).put(report(1))

    with pytest.raises(VotesError, match=f"votes database: {type(error).__name__}"):
        on_own_loop(run())
