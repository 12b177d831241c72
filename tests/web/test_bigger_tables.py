"""Tables of three or four through the API: their own ending, listed by `GET /api/rules`
(docs/rules.md#bigger-tables), and runs of battles that stop as the last person goes out
(`stop_when_out`, docs/api.md#play-battles), played here and in the worker process alike."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from cardwar import PRESETS, Round, Rules
from cardwar.rules import BIGGER_TABLES
from cardwar.web.schemas import BattlesOut

YOU_AND_MIA = [
    {"kind": "person", "name": ""},
    {"kind": "person", "name": "Mia"},
    {"kind": "computer", "name": ""},
    {"kind": "computer", "name": ""},
]


def table_rules(players: int) -> dict[str, Any]:
    """The rules a table of `players` gets from the House rules panel: classic, with the
    bigger table's ending laid over it."""
    return {"players": players, **BIGGER_TABLES[players]}


def first_seed(players: int, fits: Any) -> tuple[int, Round]:
    """The first seed whose round, played to its end under `table_rules(players)`, `fits`."""
    rules = Rules.from_dict(table_rules(players))
    for seed in range(2000):
        played = Round(rules, seed=seed)
        played.play()
        if fits(played):
            return seed, played
    raise AssertionError("no seed fits")  # pragma: no cover - the search is over fixed deals


def you_out_early(played: Round) -> bool:
    """Seat 0 goes out well before the end, while the others play on."""
    out = played.out_at[0]
    return out is not None and 3 <= out <= 40 and played.battles >= out + 10


def deal(client: TestClient, **body: Any) -> dict[str, Any]:
    """POST /api/rounds, checked."""
    response = client.post("/api/rounds", json=body)
    assert response.status_code == 201, response.text
    dealt: dict[str, Any] = response.json()
    return dealt


def play(client: TestClient, round_id: str, **body: Any) -> dict[str, Any]:
    """POST battles, checked against the API's shape."""
    response = client.post(f"/api/rounds/{round_id}/battles", json=body)
    assert response.status_code == 200, response.text
    played: dict[str, Any] = response.json()
    BattlesOut.model_validate(played)
    return played


def test_rules_list_each_bigger_tables_ending(client: TestClient) -> None:
    """`bigger_tables` gives three and four players a shorter battle limit where the biggest
    pile wins; each makes valid rules, and is shorter than the classic limit."""
    tables = client.get("/api/rules").json()["bigger_tables"]
    assert tables == {
        "3": {"battle_limit": 150, "limit_outcome": "most_cards"},
        "4": {"battle_limit": 250, "limit_outcome": "most_cards"},
    }
    for players, fields in tables.items():
        rules = Rules.from_dict({"players": int(players), **fields})
        assert rules.battle_limit is not None and rules.battle_limit < 500


def test_the_presets_and_rules_sent_keep_their_own_limits(client: TestClient) -> None:
    """The bigger tables change no preset and no rules sent: two players draw at 500, as the
    classic rules say, and three players sent with no limit of their own keep the preset's."""
    info = client.get("/api/rules").json()
    assert info["presets"] == {name: rules.to_dict() for name, rules in PRESETS.items()}
    assert (info["presets"]["classic"]["battle_limit"], info["fields"]["players"]["default"]) == (
        500,
        2,
    )
    three = deal(client, rules={"players": 3})["rules"]
    assert (three["battle_limit"], three["limit_outcome"]) == (500, "draw")


@pytest.mark.parametrize("count", [60, 400], ids=["click", "long run"])
def test_a_run_stops_at_the_battle_you_go_out(client: TestClient, count: int) -> None:
    """With `stop_when_out`, a run stops after the battle that puts you out at a table of three,
    whether played here (up to 100) or in the worker process (more); the next run, with no person
    left in, plays on as asked."""
    seed, played = first_seed(3, you_out_early)
    out = played.out_at[0]
    assert out is not None
    dealt = deal(client, rules=table_rules(3), seed=seed)
    answer = play(client, dealt["id"], count=count, stop_when_out=True)
    assert len(answer["battles"]) == out
    assert answer["round"]["counts"][0] == 0 and answer["round"]["outcome"] is None
    assert answer["round"]["out_at"][0] == out
    more = play(client, dealt["id"], count=5, stop_when_out=True)
    assert [battle["number"] for battle in more["battles"]] == list(range(out + 1, out + 6))


def test_without_stop_when_out_a_run_plays_on_after_you_are_out(client: TestClient) -> None:
    """Left out, the run plays its count, as it always has: the computers play on."""
    seed, played = first_seed(3, you_out_early)
    out = played.out_at[0]
    assert out is not None
    dealt = deal(client, rules=table_rules(3), seed=seed)
    answer = play(client, dealt["id"], count=out + 5)
    assert len(answer["battles"]) == out + 5


def test_at_one_device_a_run_stops_when_the_last_person_is_out(client: TestClient) -> None:
    """With two people at a table of four, the run goes on past the first one out and stops at
    the battle that puts the second out."""

    def both_out_early(played: Round) -> bool:
        first, second = played.out_at[:2]
        return first is not None and second is not None and first < second < played.battles

    seed, played = first_seed(4, both_out_early)
    last = max(at for at in played.out_at[:2] if at is not None)
    dealt = deal(client, rules=table_rules(4), seed=seed, seats=YOU_AND_MIA)
    answer = play(client, dealt["id"], count=100, stop_when_out=True)
    assert len(answer["battles"]) == last
    assert answer["round"]["counts"][:2] == [0, 0] and answer["round"]["outcome"] is None


def test_stop_when_out_changes_nothing_at_a_table_of_two(client: TestClient) -> None:
    """Two players: going out ends the round, so the run plays as it would have."""
    ends = deal(client, deal=[["2H", "3H"], ["AS", "KS"]])
    answer = play(client, ends["id"], count=10, stop_when_out=True)
    assert len(answer["battles"]) == 2 and answer["round"]["outcome"]["winner"] == 1


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_stop_when_out_must_be_true_or_false(client: TestClient, value: object) -> None:
    """Anything but true or false is refused, naming the field, and plays nothing."""
    dealt = deal(client, rules=table_rules(3), seed=1)
    response = client.post(
        f"/api/rounds/{dealt['id']}/battles", json={"count": 5, "stop_when_out": value}
    )
    assert response.status_code == 422
    assert response.json()["detail"].startswith("stop_when_out:")
    assert client.get(f"/api/rounds/{dealt['id']}").json()["battles"] == 0
