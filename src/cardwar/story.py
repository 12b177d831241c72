"""Looking back at a round: any battle played again from the deal, and the round's story (each
seat's cards battle by battle, the wars, the lead changes, the biggest war) for a chart.

Both start from a round's history (`cardwar.persist.history`) and play it again: the past of a
round is never stored, only what rebuilds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardwar.engine import Round
from cardwar.persist import rebuild
from cardwar.rules import Rules

STORY_POINTS = 400
"""A story's chart is drawn from the deal and at most this many battles after it (evenly spaced,
the last included): at most 401 points, however long the round."""


def _replayed(history: Mapping[str, Any], battles: int) -> Round:
    return rebuild(
        Rules.from_dict(history["rules"]),
        seed=history["seed"],
        deal=history["deal"],
        battles=battles,
        cap=history.get("cap"),
    )


def battle_again(history: Mapping[str, Any], number: int) -> dict[str, Any]:
    """The record of battle `number` of the round `history` describes, played again from its
    deal, with the counts before it."""
    round_ = _replayed(history, number - 1)
    before = list(round_.counts)
    return {"battle": round_.play_battle().to_dict(), "counts_before": before}


def round_story(history: Mapping[str, Any]) -> dict[str, Any]:
    """Each seat's cards battle by battle (the deal, then at most STORY_POINTS battles, evenly
    spaced, the last included), the battles each seat won, every battle with a war, how often
    the lead changed, and the biggest war."""
    total = history["battles"]
    round_ = _replayed(history, 0)
    every = max(1, -(-total // STORY_POINTS))
    points = [{"battle": 0, "counts": list(round_.counts)}]
    wars: list[dict[str, Any]] = []
    won = [0] * len(round_.counts)
    leader: int | None = None
    changes = 0
    for _ in range(total):
        battle = round_.play_battle()
        counts = battle.counts
        if battle.winner is not None:
            won[battle.winner] += 1
        if battle.number % every == 0 or battle.number == total:
            points.append({"battle": battle.number, "counts": list(counts)})
        if battle.wars:
            wars.append(
                {"battle": battle.number, "wars": battle.wars, "taken": battle.taken,
                 "winner": battle.winner}
            )  # fmt: skip
        most = max(counts)
        ahead = [seat for seat, count in enumerate(counts) if count == most]
        if len(ahead) == 1:
            if leader is not None and ahead[0] != leader:
                changes += 1
            leader = ahead[0]
    biggest = max(wars, key=lambda war: (war["taken"], war["wars"]), default=None)
    return {
        "battles": total,
        "points": points,
        "won": won,
        "wars": wars,
        "lead_changes": changes,
        "biggest_war": biggest,
    }
