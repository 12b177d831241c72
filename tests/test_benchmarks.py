"""The benchmarks still run: each on a tiny load, checking what it prints, never its timings."""

from __future__ import annotations

import json
import re
import socketserver
import subprocess
import sys
import threading
from pathlib import Path
from typing import ClassVar

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"


def run(script: str, *args: str) -> str:
    """What `benchmarks/<script>` prints with `args`; it must exit 0."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_engine_benchmark_prints_its_ratio_and_target() -> None:
    out = run("engine.py", "--rounds", "5", "--repeat", "1")
    assert "battles/s" in out
    assert "target" in out


def test_api_benchmark_prints_click_static_probe_and_target() -> None:
    out = run("api.py", "--players", "3", "--paced-seconds", "0.5", "--flat-seconds", "0.3")
    for line in ("paced    one-battle click", "paced    static file", "additions"):
        assert line in out
    assert "flat out one-battle click" in out
    assert "click / probe" in out
    assert "target: paced click p99 under 10 ms" in out


def test_hostile_benchmark_prints_players_attacker_memory_storage_and_targets() -> None:
    out = run(
        "hostile.py",
        *("--players", "3", "--seconds", "1", "--baseline-seconds", "0.5", "--think-ms", "100"),
        *("--long-requests", "2", "--flood", "40", "--body-mb", "1"),
    )
    for line in ("  baseline ", "  under attack ", "under attack / baseline: p99"):
        assert line in out, line
    for figure in ("clicks", "p50", "p99", "worst", "failures", "peak memory"):
        assert out.count(figure) >= 2, figure
    for attack in (
        "dealt the endless round:",
        "2 requests of 100,000 battles",
        "1 MB body with a Content-Length:",
        "1 MB body chunked:",
        "flood of 40 new rounds",
        "read of the endless round:",
        "story of the endless round:",
        "the long requests' answers",
    ):
        assert attack in out, attack
    assert "stored: " in out
    assert "after SIGTERM during a long run" in out and "errors logged" in out
    assert "restarted: the endless round read back in " in out
    assert all(int(mb) > 0 for mb in re.findall(r"peak memory (\d+) MB", out))  # sampled
    # The timings of tests/web/test_matches.py (a long round's story), test_durability.py (SIGTERM
    # during a long run) and test_guard.py (a round back from its snapshot) are measured here.
    for goal in (
        "players' p99 under 100 ms",
        "no click over 500 ms",
        "no failed click",
        "peak memory under 300 MB",
        "nothing lost",
        "the endless round's story in under 10 s",
        "stopped within 10 s of SIGTERM",
        "read back from its snapshot in under 500 ms",
    ):
        assert f"target: {goal}: target " in out, goal


def test_hostile_benchmark_live_mode_prints_the_tables_the_socket_attacks_and_targets() -> None:
    out = run(
        "hostile.py",
        *("--players", "2", "--seconds", "3", "--baseline-seconds", "2", "--think-ms", "100"),
        *("--long-requests", "1", "--flood", "20", "--body-mb", "1", "--live-tables", "2"),
        *("--socket-attacks", "2", "--socket-flood", "30", "--fanout-plays", "3"),
    )
    assert "target: players' p99 under 100 ms: target " in out  # the HTTP attacks still run
    for line in ("  live baseline ", "  live under attack ", "live under attack / baseline: p99"):
        assert line in out, line
    assert out.count("flips)") == 2
    # Each attack on the sockets is counted, and the server turns each away as it should.
    for attack in (
        "2 sockets to an honest table from another page's Origin: refused 403 x2",
        "2 sockets with no Origin: refused 403 x2",
        "2 sockets to made-up table codes: closed 4404 x2",
        "2 sockets to made-up watch codes: closed 4404 x2",
        "2 5 KB messages (its own seat): closed 1009 x2",
        "2 floods of 60 pings at once (its own seat): closed 1008 x2",
        "flood of 30 sockets watching its table",
        "an honest newcomer's socket meanwhile (watching an honest table): let in",
        "3 plays of 10 battles on its table",
    ):
        assert attack in out, attack
    assert "live stored: " in out and "lost 0, duplicated 0, stored but never told 0" in out
    for goal in (
        "live tables' p99 under attack under 100 ms",
        "no live battle lost or duplicated",
        "no honest socket closed or refused",
        "a newcomer let in while one address floods",
    ):
        assert f"target: {goal}: target " in out, goal


def test_tables_benchmark_prints_flips_beside_clicks_memory_battles_and_targets() -> None:
    out = run(
        "tables.py",
        *("--tables", "4", "--seconds", "4", "--flip-s", "0.5", "--clickers", "2"),
        *("--click-ms", "100", "--baseline-seconds", "1", "--battle-limit", "3"),
    )
    for line in (
        "4 live tables of two people",
        "  set-up (not measured): 4 tables opened",
        "8 sockets joined",
        "  click alone ",
        "  click beside ",
        "  flip to both told ",
        "flip to both told / click beside it: p50",
        "click beside the tables / alone: p99",
        "  client: ",
        "loop late",
        "  machine: load average",
    ):
        assert line in out, line
    memory = re.search(
        r"server memory: (\d+) MB \((\d+) MB counting shared pages per process\) at rest;"
        r" (\d+) MB \(\d+ MB [a-z ]+\) with 8 sockets open",
        out,
    )
    assert memory is not None and int(memory[1]) > 0  # the sampler process really measured
    # The server and its worker share pages (the interpreter, numba): their proportional sizes
    # sum to less than their whole ones.
    assert int(memory[1]) < int(memory[2])
    # Rounds of 3 battles: each ends within the window, and its host deals the next one.
    battles = re.search(r"in (\d+) rounds \((\d+) ended, (\d+) next dealt\)", out)
    assert battles is not None and int(battles[2]) > 0 and battles[2] == battles[3]
    assert "lost 0, duplicated 0; stored but never told 0" in out
    assert "stored: the tables' battles told, every one stored" in out
    for goal in (
        "flip to both told under 50 ms at p99",
        "server under 400 MB",
        "no battle lost or duplicated",
    ):
        assert f"target: {goal}: target " in out, goal


def test_tables_benchmark_prints_what_an_idle_socket_costs_and_its_targets() -> None:
    """`tables.py --sockets`: the sockets joined, the server's memory at rest, with the tables
    and with the sockets, a socket's share, and its two targets."""
    out = run("tables.py", "--sockets", "20")
    for expected in (
        "20 idle live sockets: 10 tables of two people",
        "20 sockets joined in",
        "0 refused",
        "permessage-deflate: offered by every socket, accepted by none",
        "MB at rest,",
        "KB the socket alone",
        "an idle socket at most 16 KB, its table's share included: target",
        "target: no permessage-deflate: target met",
    ):
        assert expected in out, out


def test_load_benchmark_prints_throughput_latency_memory_ratio_and_targets() -> None:
    out = run(
        "load.py",
        *("--players", "6", "--seconds", "1", "--few-players", "2", "--few-seconds", "0.5"),
    )
    for line in ("   2 players ", "   6 players ", "6 / 2 players: p99", "stored: "):
        assert line in out, line
    assert "server at rest: " in out and "memory over rest" in out
    at_rest = re.search(r"server at rest: (\d+) MB", out)
    assert at_rest is not None and int(at_rest[1]) > 0  # the sampler process really measured
    assert out.count("chance ") == 2 and out.count("turned away (429") == 2  # as the page asks
    for figure in ("clicks", "/s", "p50", "p99", "worst", "peak memory"):
        assert out.count(figure) >= 2, figure
    assert "throughput" in out
    for goal in (
        "at least 57 clicks/s",
        "p99 under 10 ms",
        "peak memory under 100 MB",
        "no failed click",
        "nothing lost",
    ):
        assert f"target: {goal}: target " in out, goal


def test_simulate_benchmark_prints_speeds_ratios_memory_and_targets() -> None:
    out = run(
        "simulate.py", "--rounds", "20000", "--engine-rounds", "20",
        "--memory-rounds", "20000", "--cli-rounds", "20000", "--chance-rounds", "2",
    )  # fmt: skip
    for line in (
        "readable engine, classic, one core:",
        "simulator, classic, one core:",
        "simulator / readable engine:",
        "two workers / one:",
        "peak memory, 20,000 rounds:",
        "cardwar simulate --rounds 20,000:",
        "chance to win, 2,000 continuations:",
        "readable engine / simulator, chance:",
    ):
        assert line in out
    assert out.count("target") == 5


def test_enumerate_benchmark_prints_ours_beside_c_with_ratios_and_targets() -> None:
    out = run("enumerate.py", "--decks", "8x1,2x4", "--rounds", "20000", "--deals", "2000",
              "--repeat", "1")  # fmt: skip
    for line in (
        "every deal of 8x1 (winner_first, no card down, 20,160 deals): ours on one worker",
        "every deal of 2x4 (natural, no card down, 38 deals): ours on one worker",
        "rounds that loop (table order, no limit)",
        "--deals ",
        "load average",
    ):
        assert line in out, line
    if "no C compiler here" not in out:
        assert out.count("same figures") == 3 and "DIFFER" not in out
        assert out.count("C / ours one worker") == 2 and out.count(", 2 workers ") == 2
        assert "classic table, one core: ours" in out
        assert out.count("target") == 7


def test_scale_benchmark_prints_each_server_its_ratios_the_tables_and_targets(
    postgres: str, broker: str
) -> None:
    """On a tiny load (the fixtures only say both servers answer, and skip in one line where
    one does not: the script makes its own schemas and key prefixes)."""
    out = run(
        "scale.py",
        *("--players", "4", "--seconds", "1", "--tables", "4", "--table-seconds", "2"),
    )
    for label in ("PostgreSQL + Redis, 1", "PostgreSQL + Redis, 2", "PostgreSQL + Redis, 4"):
        assert re.search(rf"  {re.escape(label)} +[\d,]+ clicks +\d+/s  p50 .* failures 0", out)
    assert re.search(r"  SQLite, 1 process +[\d,]+ clicks .* failures 0  stored short 0", out)
    for line in ("2 processes / 1: ", "4 processes / 1: ", "PostgreSQL + Redis, 1 / SQLite, 1: "):
        assert line in out, line
    assert "live tables: 4 of two people over 2 processes (postgres + Redis)" in out
    assert "  flip to both told " in out
    assert "battles: lost 0, duplicated 0; stored short 0, stored but never told 0" in out
    for goal in (
        "2 processes at least 1.7x one's clicks a second",
        "live flip to both told under 50 ms at p99",
        "no battle lost or duplicated",
    ):
        assert f"target: {goal}: target " in out, goal


class _ClosesEachConnection(socketserver.BaseRequestHandler):
    """A server of rounds of five battles that answers one request a connection and closes it
    without saying so (no `Connection: close`), as a server's keep-alive timeout may."""

    battles: ClassVar[dict[str, int]] = {}

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            if not (chunk := self.request.recv(4096)):
                return
            head += chunk
        path = head.split(b" ", 2)[1].decode()
        if path == "/api/rounds":
            round_id = f"r{len(self.battles)}"
            self.battles[round_id] = 0
            status, body = "201 Created", {"id": round_id}
        else:
            round_id = path.split("/")[3]
            self.battles[round_id] += 1
            number = self.battles[round_id]
            outcome = None if number < 5 else 0
            battle = {"number": number}
            status, body = "200 OK", {"round": {"outcome": outcome}, "battles": [battle]}
        data = json.dumps(body).encode()
        self.request.sendall(
            f"HTTP/1.1 {status}\r\ncontent-length: {len(data)}\r\n"
            f"set-cookie: cardwar_player=made.here; Path=/\r\n\r\n".encode()
            + data
        )


def test_clicks_send_again_on_a_new_connection_what_a_closed_kept_one_never_read() -> None:
    """harness's `Clicks` (scale.py's clicking players) against a server that closes every
    connection after its answer: each request sent on a kept connection is sent again on a new
    one and not counted as failed (as `Connection` does); rounds end and are dealt again, every
    battle answered kept, and the cookie the server set is sent back."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from harness import Clicks, Connection, Player  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCHMARKS))
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _ClosesEachConnection)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        players = [Player(Connection(port)) for _ in range(3)]
        clicks = Clicks(port, players)
        tally = clicks.run(0.5)
        clicks.end()
    finally:
        server.shutdown()
        server.server_close()
    assert not tally.failures, tally.examples
    assert len(tally.clicks) == sum(_ClosesEachConnection.battles.values()) >= 10
    ended = [n for n in _ClosesEachConnection.battles.values() if n == 5]
    assert len(ended) >= 2  # rounds ended and were dealt again
    for player in players:
        assert player.conn.cookie == "cardwar_player=made.here"
        assert all(n == _ClosesEachConnection.battles[r] for r, n in player.answered.items())
