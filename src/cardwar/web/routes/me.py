"""/api/me: this browser's scoreboard, latest round and match, and its house rules."""

from __future__ import annotations

import functools
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from cardwar.rules import Rules
from cardwar.web.deps import (
    CurrentPlayer,
    Services,
    ServicesDep,
    services,
    write,
)
from cardwar.web.game.seats import Seat, seats_json
from cardwar.web.routing import body_route, errors
from cardwar.web.schemas import ChooseHouseRules, HouseRulesOut, MeOut, seat_values

router = APIRouter()


def house_rules_content(rules: Rules, best_of: int, seats: tuple[Seat, ...]) -> dict[str, Any]:
    """Chosen house rules in the API's shape."""
    return {
        "preset": rules.preset_name,
        "rules": rules.to_dict(),
        "best_of": best_of,
        "seats": seats_json(seats),
    }


def me_content(server: Services, player: str) -> dict[str, Any]:
    """Everything `/api/me` shows of `player`. Call it from a thread."""
    board = server.players.scoreboard(player)
    latest = server.rounds.latest(player)
    round_, last = (None, None) if latest is None else latest
    match_id = server.matches.current_id(player, round_)
    return {
        "scoreboard": {
            "won": board.won,
            "lost": board.lost,
            "drawn": board.drawn,
            "matches_won": board.matches_won,
            "matches_lost": board.matches_lost,
            "people": [asdict(person) for person in board.people],
        },
        "round": round_,
        "last_battle": None if last is None else last.to_dict(),
        "match": None if match_id is None else server.matches.get(match_id),
        "house_rules": house_rules_content(
            server.players.house_rules(player),
            server.players.best_of(player),
            server.players.seats(player),
        ),
        "tables": [
            {
                "code": table.code,
                "host": table.host == player,
                "names": [seat.name for seat in table.seats],
                "given": table.given_from(player),
            }
            for table in server.players.tables(player)
        ],
    }


@router.get(
    "/api/me",
    response_model=MeOut,
    responses=errors(429),
    summary="This browser's scoreboard, round and house rules",
)
async def me(server: ServicesDep, who: CurrentPlayer) -> JSONResponse:
    """Rounds won, lost and drawn by this browser, its latest round with that round's last
    battle (to resume the table as it was), and the house rules it chose."""
    return server.reply(await run_in_threadpool(me_content, server, who.id), who)


@body_route(
    router, "/api/me/house-rules", ChooseHouseRules, HouseRulesOut,
    "Choose the rules of this browser's next rounds", method="PUT",
)  # fmt: skip
async def choose_house_rules(request: Request) -> JSONResponse:
    """Check and remember a preset and rule overrides, the match length and who sits at the
    table; the page deals its next rounds with them. Remembered per browser, like the
    scoreboard."""
    body, who = await write(request, ChooseHouseRules, "house rules")
    server = services(request)
    chosen, best_of, seats = await run_in_threadpool(
        functools.partial(
            server.players.choose_house_rules,
            who.id,
            preset=body.preset,
            rules=body.rules,
            best_of=body.best_of,
            seats=seat_values(body.seats),
        )
    )
    return server.reply(house_rules_content(chosen, best_of, seats), who)
