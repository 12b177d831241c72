"""Matches (best of 1, 3 or 5, draws not counting), timed rounds with a clock the server keeps,
and looking back at a round: replaying any battle, and its story."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cardwar import Round, Rules
from cardwar.errors import MatchError, MatchOverError
from cardwar.match import Match, round_seed

from helpers import ClientFactory

QUICK = {"hand_size": 4, "battle_limit": 12}  # short rounds, and now and then a drawn one
RULES = Rules.from_dict(QUICK)


def winners_of(match_seed: int, rounds: int) -> list[int | None]:
    """Who wins each of a match's first rounds, found on the readable engine."""
    found = []
    for index in range(rounds):
        round_ = Round(RULES, seed=round_seed(match_seed, index))
        round_.play()
        assert round_.outcome is not None
        found.append(round_.outcome.winner)
    return found


def seed_where(pattern: list[int | None]) -> int:
    """The first match seed whose rounds go as `pattern` says."""
    for seed in range(20_000):
        if winners_of(seed, len(pattern)) == pattern:
            return seed
    raise AssertionError(f"no seed below 20,000 plays {pattern}")


def play_out(client: TestClient, round_id: str) -> dict[str, Any]:
    """Play a round to its end; the round."""
    response = client.post(f"/api/rounds/{round_id}/battles", json={"count": 1000})
    assert response.status_code == 200, response.text
    round_: dict[str, Any] = response.json()["round"]
    assert round_["outcome"] is not None
    return round_


def play_match(client: TestClient, seed: int, best_of: int = 3) -> dict[str, Any]:
    """Start a match and play every round to its end until it is decided; the match."""
    dealt = client.post("/api/matches", json={"best_of": best_of, "rules": QUICK, "seed": seed})
    assert dealt.status_code == 201, dealt.text
    match: dict[str, Any] = dealt.json()
    assert match["round"]["match_id"] == match["id"]
    while True:
        play_out(client, match["rounds"][-1]["id"])
        match = client.get(f"/api/matches/{match['id']}").json()
        if match["over"]:
            return match
        dealt = client.post(f"/api/matches/{match['id']}/rounds")
        assert dealt.status_code == 201, dealt.text
        match = dealt.json()


# -- the rule ----------------------------------------------------------------------------------


def test_a_match_needs_a_majority_and_draws_do_not_count() -> None:
    """Best of 3 is two wins, best of 5 three; a drawn round is played again."""
    match = Match(3, 2)
    assert (match.needed, match.over, match.leader) == (2, False, None)
    match = match.add(0).add(None).add(1)
    assert (match.score, match.draws, match.winner, match.leader) == ((1, 1), 1, None, None)
    match = match.add(1)
    assert (match.winner, match.over, match.leader) == (1, True, 1)
    with pytest.raises(MatchOverError) as refused:
        match.add(0)
    assert str(refused.value) == "the match is over: seat 1 has won it"
    assert Match(5, 3, (2, 2, 0, 2)).winner == 2
    assert Match(1, 2, (None, None, 0)).winner == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((2, 2), "best_of: must be 1, 3 or 5, not 2"),
        ((True, 2), "best_of: must be 1, 3 or 5, not True"),
        ((3, 5), "players: 5 is out of range, must be 2..4"),
        ((3, 2, (2,)), "winners: seat 2 is not at a table of 2"),
        ((3, 2, (0, 0, 1)), "winners: the match was decided before its last round"),
    ],
)
def test_a_match_that_cannot_be_is_refused(args: tuple[Any, ...], message: str) -> None:
    """Match values are checked, each problem named."""
    with pytest.raises(MatchError) as refused:
        Match(*args)
    assert str(refused.value) == message


def test_seeds_the_server_picks_are_exact_in_a_browser(client: TestClient) -> None:
    """Rounds and matches dealt without a seed get one below 2**53, so the page can replay
    and share them; a client may still give a larger one."""
    for _ in range(12):  # within the burst of new rounds one browser may deal at once
        assert client.post("/api/rounds", json={}).json()["seed"] < 2**53
        match = client.post("/api/matches", json={}).json()
        assert match["seed"] < 2**53 and match["round"]["seed"] < 2**53
    big = client.post("/api/rounds", json={"seed": 2**63 - 1})
    assert big.status_code == 201 and big.json()["seed"] == 2**63 - 1


def test_a_match_seed_deals_every_round() -> None:
    """Round k of a match is dealt from a seed of its own, the same every time."""
    seeds = [round_seed(7, index) for index in range(5)]
    assert len(set(seeds)) == 5
    # Pinned: a stored match deals the same rounds after an upgrade.
    assert (seeds[0], seeds[4]) == (3344595609062871, 5413335610565082)
    assert all(0 <= seed < 2**53 for seed in seeds)  # exact in a browser


# -- matches through the API -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "score", "winner"),
    [([0, 0], [2, 0], 0), ([1, 0, 1], [1, 2], 1), ([0, None, 1, 0], [2, 1], 0)],
    ids=["2-0", "2-1", "a draw not counting"],
)
def test_best_of_three(
    client: TestClient, pattern: list[int | None], score: list[int], winner: int
) -> None:
    """A best of 3 goes to two round wins; a drawn round is played again and counts for no
    one; the decided match refuses another round (409); the scoreboard counts it."""
    match = play_match(client, seed_where(pattern))
    assert [r["winner"] for r in match["rounds"]] == pattern
    assert (match["score"], match["winner"], match["over"]) == (score, winner, True)
    assert match["draws"] == pattern.count(None) and match["needed"] == 2
    refused = client.post(f"/api/matches/{match['id']}/rounds")
    assert refused.status_code == 409
    assert refused.json()["detail"] == f"match {match['id']} is over: seat {winner} won it"
    board = client.get("/api/me").json()["scoreboard"]
    assert (board["matches_won"], board["matches_lost"]) == ((1, 0) if winner == 0 else (0, 1))
    assert board["won"] == pattern.count(0) and board["drawn"] == pattern.count(None)


def test_a_match_waits_for_its_round_and_survives_a_restart(make_client: ClientFactory) -> None:
    """The next round is refused while one is being played; a restart keeps the match, which
    /api/me hands back with the round to resume."""
    client = make_client()
    match = client.post("/api/matches", json={"best_of": 5, "rules": QUICK, "seed": 3}).json()
    waiting = client.post(f"/api/matches/{match['id']}/rounds")
    assert waiting.status_code == 409
    assert "is still being played" in waiting.json()["detail"]
    play_out(client, match["round"]["id"])
    restarted = make_client()
    restarted.cookies = client.cookies
    again = restarted.get(f"/api/matches/{match['id']}").json()
    assert again["rounds"][0]["over"] and again["best_of"] == 5 and again["needed"] == 3
    me = restarted.get("/api/me").json()
    assert me["match"] == again and me["round"]["match_id"] == match["id"]


def test_only_the_browser_that_started_a_match_deals_its_rounds(
    make_client: ClientFactory,
) -> None:
    """Another browser that knows a match's id may look at it, but dealing its next round is
    403, and changes nothing: the owner deals it as before."""
    owner = make_client()
    match = owner.post("/api/matches", json={"rules": QUICK, "seed": 3}).json()
    play_out(owner, match["round"]["id"])
    other = make_client()
    assert other.get(f"/api/matches/{match['id']}").status_code == 200
    refused = other.post(f"/api/matches/{match['id']}/rounds")
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        f"match {match['id']}: only the browser that started it deals its rounds"
    )
    assert len(owner.get(f"/api/matches/{match['id']}").json()["rounds"]) == 1
    assert owner.post(f"/api/matches/{match['id']}/rounds").status_code == 201


def test_a_round_dealt_mid_match_leaves_the_match_open(client: TestClient) -> None:
    """A replay or a shared deal played between a match's rounds is a round of its own: /api/me
    still hands back the undecided match, whose next round can then be dealt; a decided match
    is not offered once a later round stands on its own."""
    match = client.post("/api/matches", json={"best_of": 3, "rules": QUICK, "seed": 3}).json()
    play_out(client, match["round"]["id"])
    aside = client.post("/api/rounds", json={"rules": QUICK, "seed": 99}).json()
    me = client.get("/api/me").json()
    assert me["round"]["id"] == aside["id"] and me["round"]["match_id"] is None
    assert me["match"]["id"] == match["id"] and not me["match"]["over"]
    dealt = client.post(f"/api/matches/{match['id']}/rounds")
    assert dealt.status_code == 201 and len(dealt.json()["rounds"]) == 2

    decided = play_match(client, seed_where([0, 0]))
    assert client.get("/api/me").json()["match"]["id"] == decided["id"]
    client.post("/api/rounds", json={"rules": QUICK})
    assert client.get("/api/me").json()["match"] is None


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/api/matches", {"best_of": 2}, 422, "best_of: Input should be 1, 3 or 5"),
        ("/api/matches", {"best_of": True}, 422, "best_of: Input should be a valid integer"),
        ("/api/matches", {"best_of": 3.0}, 422, "best_of: Input should be a valid integer"),
        ("/api/matches/" + "m" * 5000 + "/rounds", {}, 404, "match 'mmmmmmmm"),
        ("/api/matches", {"rules": {"players": 9}}, 422, "players: 9 is out of range"),
        ("/api/matches", {"seed": -1}, 422, "seed: must be a whole number from 0"),
        ("/api/matches/nope/rounds", {}, 404, "match 'nope': no such match"),
        ("/api/matches/nope/rounds", {"x": 1}, 422, "x: Extra inputs are not permitted"),
    ],
)
def test_bad_match_requests(
    client: TestClient, path: str, body: dict[str, Any], status: int, message: str
) -> None:
    """Bad matches are 422 naming the field; unknown ones 404."""
    response = client.post(path, json=body)
    assert response.status_code == status
    assert message in response.json()["detail"]
    assert client.get("/api/matches/nope").status_code == 404


# -- the clock ---------------------------------------------------------------------------------


def test_the_server_keeps_a_timed_rounds_clock(make_client: ClientFactory) -> None:
    """time_left_s counts down from the deal, through a restart; when it reaches zero the round
    ends by a count (time_up), and the clock is gone."""
    now = [1_000_000.0]
    client = make_client(clock=lambda: now[0])
    data = client.post("/api/rounds", json={"preset": "timed", "seed": 4}).json()
    assert data["time_left_s"] == 600.0
    client.post(f"/api/rounds/{data['id']}/battles", json={"count": 25})
    now[0] += 240.5
    assert client.get(f"/api/rounds/{data['id']}").json()["time_left_s"] == 359.5
    restarted = make_client(clock=lambda: now[0])
    assert restarted.get(f"/api/rounds/{data['id']}").json()["time_left_s"] == 359.5
    now[0] += 360
    ended = restarted.get(f"/api/rounds/{data['id']}").json()
    assert ended["outcome"]["reason"] in {"time_up", "most_cards_tie"}
    assert ended["time_left_s"] is None and ended["battles"] == 25
    counts = ended["counts"]
    if ended["outcome"]["reason"] == "time_up":
        assert counts[ended["outcome"]["winner"]] == max(counts)
    assert restarted.post(f"/api/rounds/{data['id']}/battles").status_code == 409
    assert client.post("/api/rounds", json={}).json()["time_left_s"] is None


# -- looking back ------------------------------------------------------------------------------


def test_any_battle_can_be_played_again(client: TestClient) -> None:
    """Battle n of a round comes back exactly as it was played, with the counts before it; a
    battle not yet played is 404, and a number that is not one is 422."""
    data = client.post("/api/rounds", json={"preset": "traditional", "seed": 12}).json()
    played = client.post(f"/api/rounds/{data['id']}/battles", json={"count": 40}).json()
    records = played["battles"]
    for number in (1, 17, 40):
        again = client.get(f"/api/rounds/{data['id']}/battles/{number}").json()
        assert again["battle"] == records[number - 1]
        before = records[number - 2]["counts"] if number > 1 else [26, 26]
        assert again["counts_before"] == before and again["round_battles"] == 40
    missing = client.get(f"/api/rounds/{data['id']}/battles/41")
    assert missing.status_code == 404
    assert missing.json()["detail"] == f"battle 41: round {data['id']} has played 40 so far"
    for number in ("0", "-1", "two"):
        refused = client.get(f"/api/rounds/{data['id']}/battles/{number}")
        assert refused.status_code == 422
        assert refused.json()["detail"].startswith("path.number: Input should be")


def test_the_story_of_a_round(client: TestClient) -> None:
    """Every seat's cards battle by battle, every war, the lead changes and the biggest war,
    as the readable engine tells them."""
    data = client.post("/api/rounds", json={"seed": 21}).json()
    client.post(f"/api/rounds/{data['id']}/battles", json={"count": 1000})
    story = client.get(f"/api/rounds/{data['id']}/story").json()
    round_ = Round(Rules(), seed=21)
    records = round_.play()
    assert story["battles"] == len(records)
    assert story["points"][0] == {"battle": 0, "counts": [26, 26]}
    assert story["points"][-1] == {"battle": len(records), "counts": list(records[-1].counts)}
    assert len(story["points"]) <= 401
    for point in story["points"][1:]:
        assert point["counts"] == list(records[point["battle"] - 1].counts)
    assert [war["battle"] for war in story["wars"]] == [b.number for b in records if b.wars]
    assert story["won"] == [sum(b.winner == seat for b in records) for seat in (0, 1)]
    leaders = []
    for record in records:
        most = max(record.counts)
        if record.counts.count(most) == 1:
            leaders.append(record.counts.index(most))
    changes = sum(1 for a, b in itertools.pairwise(leaders) if a != b)
    assert story["lead_changes"] == changes
    biggest = max((b for b in records if b.wars), key=lambda b: (b.taken, b.wars))
    assert story["biggest_war"]["taken"] == biggest.taken


def test_a_long_rounds_story_has_at_most_400_points(make_client: ClientFactory) -> None:
    """A round of thousands of battles is drawn from 400 points, first and last included."""
    client = make_client()
    endless = {"battle_limit": None, "gather": "table", "war_down": 0}
    data = client.post("/api/rounds", json={"rules": endless, "seed": 39}).json()
    client.post(f"/api/rounds/{data['id']}/battles", json={"count": 6000})
    # How soon a long round's story comes (under 10 s) is benchmarks/hostile.py's to measure.
    story = client.get(f"/api/rounds/{data['id']}/story").json()
    assert story["battles"] == 6000 and 300 <= len(story["points"]) <= 401
    assert story["points"][-1]["battle"] == 6000
