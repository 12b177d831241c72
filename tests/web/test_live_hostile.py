"""What a hostile or unlucky table meets (docs/api.md#limits-of-live-tables): no seat held for
ever, a deal and a run to the end limited as they are over HTTP, a frame that is not text."""

from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

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
