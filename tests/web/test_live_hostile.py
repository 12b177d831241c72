"""What a hostile or unlucky table meets (docs/api.md#limits-of-live-tables): no seat held for
ever, a deal and a run to the end limited as they are over HTTP, a frame that is not text, and
no few addresses able to fill a process's sockets against a newcomer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from cardwar.web.live.doors import Doors, Full, Ticket

from devices import Device, heard, joined, live_of, open_table, served, until
from helpers import ClientFactory

__all__ = ["served"]  # a fixture, used by name


def test_a_seat_whose_socket_never_opens_is_away_and_goes_to_the_computer(
    served: ClientFactory,
) -> None:
    """Mia sits down and never opens her socket: after `live_unseen_s` her seat is away, and
    two minutes later the host may give it; the table never waits for ever."""
    now = [1_000_000.0]
    client = served(clock=lambda: now[0], live_unseen_s=10)
    host, mia = Device(client), Device(client)
    code = open_table(host)["invite"]["code"]
    assert mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"}).status_code == 200
    live = live_of(client)
    with host.socket(f"/api/tables/{code}/live") as ann_ws:
        joined(ann_ws)
        ann_ws.send_json({"type": "give", "seat": 1})
        assert "is at the table" in until(ann_ws, "error")["message"]  # not yet seen away
        client.portal.call(live.doors.sweep)  # the seat is seen empty: its clock starts
        now[0] += 9
        client.portal.call(live.doors.sweep)
        ann_ws.send_json({"type": "ping"})
        assert heard(ann_ws) == {"type": "pong"}  # nine seconds: not away yet
        now[0] += 1
        client.portal.call(live.doors.sweep)
        assert heard(ann_ws) == {"type": "away", "seat": 1}
        now[0] += 121
        ann_ws.send_json({"type": "give", "seat": 1})
        assert until(ann_ws, "given")["seat"] == 1


def test_a_seat_not_reopened_after_a_restart_is_away_in_time(make_client: ClientFactory) -> None:
    """After a restart of a server of one process (what it knew of who was away is gone with
    it), nobody is away until their sockets have had time to come back; a person who never
    comes back is away then, as if their last socket had closed. (With a broker, the presence
    outlives a process: a dead process's sockets lapse with its heartbeat, test_live_processes.)"""
    now = [1_000_000.0]
    client = make_client(clock=lambda: now[0], live_unseen_s=10)
    host, mia = Device(client), Device(client)
    code = open_table(host)["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    with mia.socket(f"/api/tables/{code}/live") as mia_ws:
        joined(mia_ws)
    restarted = make_client(clock=lambda: now[0], live_unseen_s=10)
    host.client = restarted
    live = live_of(restarted)
    with host.socket(f"/api/tables/{code}/live") as ann_ws:
        table = joined(ann_ws)
        assert not table["seats"][1]["away"]
        restarted.portal.call(live.doors.sweep)
        now[0] += 9
        restarted.portal.call(live.doors.sweep)
        ann_ws.send_json({"type": "ping"})
        assert heard(ann_ws) == {"type": "pong"}  # time yet for Mia's page to come back
        now[0] += 1
        restarted.portal.call(live.doors.sweep)
        assert heard(ann_ws) == {"type": "away", "seat": 1}


def test_the_next_round_through_a_socket_is_a_write_like_any_other(
    make_client: ClientFactory,
) -> None:
    """A host dealing again and again through the socket meets the writes' budget of `POST
    /api/rounds` (told so, the socket kept), not 60 rounds a second."""
    client = make_client(writes_burst=3, writes_per_minute=1)
    host = Device(client)
    code = open_table(host)["invite"]["code"]  # the first write of the three: two deals left
    with host.socket(f"/api/tables/{code}/live") as ws:
        joined(ws)
        dealt = refused = 0
        for _ in range(4):
            ws.send_json({"type": "play", "to_end": True})
            until(ws, "played")
            ws.send_json({"type": "next"})
            message = heard(ws)
            while message["type"] not in ("table", "error"):
                message = heard(ws)
            if message["type"] == "table":
                dealt += 1
            else:
                assert "too many too fast" in message["message"], message
                refused += 1
                break
        assert (dealt, refused) == (2, 1)
        ws.send_json({"type": "ping"})
        assert until(ws, "pong") == {"type": "pong"}  # the socket is kept


def test_a_run_to_the_end_is_a_long_run_one_at_a_time_for_a_browser(
    make_client: ClientFactory,
) -> None:
    """With the server's long runs all taken, the host's Play to end is told so; the socket
    is kept, and plays again once one is free."""
    client = make_client(long_runs=1)
    host = Device(client)
    code = open_table(host)["invite"]["code"]
    limits = client.app.app.state.services.limits  # type: ignore[attr-defined]
    client.portal.call(limits.long_runs.enter, "someone else")
    with host.socket(f"/api/tables/{code}/live") as ws:
        joined(ws)
        ws.send_json({"type": "play", "to_end": True})
        assert "busy with other long runs" in until(ws, "error")["message"]
        client.portal.call(limits.long_runs.leave, "someone else")
        ws.send_json({"type": "play", "to_end": True})
        assert until(ws, "played")["round"]["outcome"] is not None


def test_a_binary_frame_closes_the_socket_as_unreadable(make_client: ClientFactory) -> None:
    """A frame that is not JSON text closes the socket with 1003, naming why."""
    client = make_client()
    host = Device(client)
    code = open_table(host)["invite"]["code"]
    with pytest.raises(WebSocketDisconnect) as closed:
        with host.socket(f"/api/tables/{code}/live") as ws:
            joined(ws)
            ws.send_bytes(b'{"type": "ping"}')
            heard(ws)
    assert closed.value.code == 1003 and "not binary" in closed.value.reason


def test_a_few_addresses_cannot_fill_the_process_against_a_newcomer() -> None:
    """Four addresses holding all of a process's 1,000 sockets do not lock anyone out: each new
    address is let in, and the address holding the most gives way (its newest socket closed),
    until the four hold one each; then the process is full for everyone alike."""
    doors = Doors(SimpleNamespace(on_lock=[]), unseen_s=10)  # type: ignore[arg-type]
    taken = [doors.let_in(f"10.0.0.{n % 4}", None, 1000, 256) for n in range(1000)]
    assert doors.sockets == 1000 and not any(isinstance(one, Full) for one in taken)
    assert doors.let_in("10.0.0.0", None, 1000, 256) is Full.SERVER  # the most gives way first
    newcomers = [doors.let_in(f"10.1.{n // 256}.{n % 256}", None, 1000, 256) for n in range(997)]
    assert [isinstance(one, Ticket) for one in newcomers] == [True] * 996 + [False]
    assert newcomers[-1] is Full.SERVER
    assert [doors.sockets_from[f"10.0.0.{n}"] for n in range(4)] == [1, 1, 1, 1]
    assert sum(isinstance(one, Ticket) and one.evicted for one in taken) == 996
    assert doors.sockets == 1000


def test_the_address_holding_the_most_gives_way_to_a_newcomer(make_client: ClientFactory) -> None:
    """With the process's sockets all taken, three by one address and one by another, a socket
    from a third address is let in, and the newest of the first address's is told why and
    closed with 1013; the first address, and then the second, are refused one more (1013)."""
    client = make_client(live_sockets=4, live_sockets_per_address=4)
    host = Device(client)
    code = open_table(host)["invite"]["code"]
    path = f"/api/tables/{code}/live"
    with contextlib.ExitStack() as stack:
        held = []
        for address in ("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2"):
            with from_address(client, address):
                held.append(stack.enter_context(host.socket(path)))
            joined(held[-1])
        with from_address(client, "10.0.0.3"):
            newcomer = stack.enter_context(host.socket(path))
        joined(newcomer)
        assert "closed to let someone else in" in heard(held[2])["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            heard(held[2])
        assert closed.value.code == 1013
        for address in ("10.0.0.1", "10.0.0.2"):
            with from_address(client, address), pytest.raises(WebSocketDisconnect) as closed:
                with host.socket(path) as refused:
                    assert "as many live tables open" in heard(refused)["message"]
                    heard(refused)
            assert closed.value.code == 1013
        assert dict(live_of(client).doors.sockets_from) == {
            "10.0.0.1": 2,
            "10.0.0.2": 1,
            "10.0.0.3": 1,
        }


@contextlib.contextmanager
def from_address(client: TestClient, address: str) -> Iterator[None]:
    """Sockets opened meanwhile come from `address` (the TestClient names one client address
    for all it opens; its transport keeps it)."""
    transport = client._transport  # type: ignore[attr-defined]
    before, transport.client = transport.client, (address, 50000)
    try:
        yield
    finally:
        transport.client = before
