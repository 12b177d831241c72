"""Looking back on a round: any battle played again from its deal (docs/api.md#replay-a-battle),
and the round told battle by battle for its chart (docs/api.md#the-story-of-a-round). Both start
from the round's history as `Rounds` keeps it; a long one is played again in the worker
process, a short one here."""

from __future__ import annotations

from typing import Any

from cardwar.story import battle_again, round_story
from cardwar.web.errors import BattleNotFound
from cardwar.web.game.rounds import Rounds
from cardwar.web.workers import here


def replay(rounds: Rounds, round_id: str, number: int) -> dict[str, Any]:
    """Battle `number` of the round, played again from its deal. Call it from a thread."""
    history = rounds.history(round_id)
    played = history["battles"]
    if not 1 <= number <= played:
        raise BattleNotFound(
            f"battle {number}: round {round_id} has played {played} so far"
            if played
            else f"battle {number}: round {round_id} has not played a battle yet"
        )
    run = rounds.worker.run if number > rounds.settings.replay_here else here
    result: dict[str, Any] = run(battle_again, history, number)
    return {**result, "round_battles": played}


def story(rounds: Rounds, round_id: str) -> dict[str, Any]:
    """The round told battle by battle, for its chart. Call it from a thread."""
    history = rounds.history(round_id)
    run = rounds.worker.run if history["battles"] > rounds.settings.replay_here else here
    result: dict[str, Any] = run(round_story, history)
    return result
