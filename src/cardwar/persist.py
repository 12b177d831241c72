"""Keeping a round and bringing it back: its history, its snapshot, and its JSON form.

A round is rules + deal + seed + how many battles were played (and whether its clock ran out):
its `history` rebuilds it exactly by playing those battles again. A `snapshot` adds where it
stands (piles, table, the generator, the loop watch), so `resume` restores it at once, however
long it has run: the web server stores one per battle.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from cardwar.cards import Card
from cardwar.engine import Round
from cardwar.errors import HistoryError, quote
from cardwar.loops import LoopWatch
from cardwar.records import Battle, Outcome, Progress
from cardwar.rules import Rules


def rebuild(
    rules: Rules,
    *,
    seed: int = 0,
    deal: Sequence[Sequence[str | Card]] | None = None,
    battles: int = 0,
    time_up: bool = False,
    cap: int | None = None,
) -> Round:
    """The exact round that `battles` battles (and a clock that ran out) make of this deal."""
    if isinstance(battles, bool) or not isinstance(battles, int) or battles < 0:
        raise HistoryError(f"battles: must be a whole number 0 or more, not {quote(battles)}")
    round_ = Round(rules, seed=seed, deal=deal, cap=cap)
    played = round_.play(battles)
    if len(played) < battles:
        raise HistoryError(f"battles: the round ended after {len(played)}, not {battles}")
    if time_up:
        round_.call_time()
    return round_


def history(round_: Round) -> dict[str, Any]:
    """What rebuilds the round exactly: rules, seed, the deal if explicit, battles played,
    whether its clock ran out, and its safety cap."""
    return {
        "rules": round_.rules.to_dict(),
        "seed": round_.seed,
        "deal": _codes(round_.deal) if round_.explicit_deal else None,
        "battles": round_.battles,
        "time_up": round_.time_up,
        "cap": round_.cap,
    }


def from_history(data: Mapping[str, Any]) -> Round:
    """The round that `history()` describes; every value is checked as it is rebuilt."""
    return rebuild(
        Rules.from_dict(data.get("rules", {})),
        seed=data.get("seed", 0),
        deal=data.get("deal"),
        battles=data.get("battles", 0),
        time_up=data.get("time_up", False) is True,
        cap=data.get("cap"),
    )


def snapshot(round_: Round) -> dict[str, Any]:
    """The round as it stands, as plain JSON values: `resume()` restores it exactly without
    replaying a battle, however long it has run."""
    now = round_.progress()
    snap = history(round_)
    snap.update(
        piles=[list(pile) for pile in now.piles],  # card indices (cardwar.cards.INDEX), top first
        table=list(now.table),
        wars=now.wars,
        out_at=list(round_.out_at),
        outcome=None if now.outcome is None else now.outcome.to_dict(),
        last_battle=None if now.last_battle is None else now.last_battle.to_dict(),
        rng=None if now.rng is None else _pack_state(now.rng),
        watch=None if round_.loop_watch is None else round_.loop_watch.state(),
    )
    return snap


def resume(snap: Mapping[str, Any]) -> Round:
    """The round that `snapshot()` described, exactly, generator and loop watch included."""
    round_ = Round(
        Rules.from_dict(snap["rules"]), seed=snap["seed"], deal=snap["deal"], cap=snap["cap"]
    )
    outcome, last = snap["outcome"], snap["last_battle"]
    out_at = snap.get("out_at")  # a snapshot from before seats were marked out has none
    round_.restore(
        Progress(
            piles=tuple(tuple(pile) for pile in snap["piles"]),
            table=tuple(snap["table"]),
            battles=snap["battles"],
            wars=snap["wars"],
            out_at=None if not out_at else tuple(out_at),
            outcome=None if outcome is None else Outcome.from_dict(outcome),
            last_battle=None if last is None else Battle.from_dict(last),
            time_up=snap["time_up"],
            rng=None if snap["rng"] is None else _unpack_state(snap["rng"]),
        )
    )
    if snap["watch"] is not None:
        round_.loop_watch = LoopWatch.resume(round_.scout, snap["watch"])
    return round_


def round_json(round_: Round) -> dict[str, Any]:
    """The whole round as plain JSON values: rules, seed, battles, wars, counts, when each seat
    went out, the outcome, every pile (top first), and the deal when it was dealt by hand.
    (The web server shows the piles and the deal only once a round is over.)"""
    out: dict[str, Any] = {
        "rules": round_.rules.to_dict(),
        "seed": round_.seed,
        "battles": round_.battles,
        "wars": round_.wars,
        "counts": list(round_.counts),
        "out_at": list(round_.out_at),
        "outcome": None if round_.outcome is None else round_.outcome.to_dict(),
        "piles": _codes(round_.piles),
    }
    if round_.explicit_deal:
        out["deal"] = _codes(round_.deal)
    return out


def _codes(piles: Sequence[Sequence[Card]]) -> list[list[str]]:
    return [[card.code for card in pile] for pile in piles]


def _pack_state(state: tuple[Any, ...]) -> str:
    """A Mersenne Twister's state (625 words) as 3.3 KB of base64."""
    version, words, gauss = state
    assert version == 3 and gauss is None  # the engine never draws from a Gaussian
    return base64.b64encode(struct.pack(f"<{len(words)}I", *words)).decode("ascii")


def _unpack_state(packed: str) -> tuple[Any, ...]:
    raw = base64.b64decode(packed)
    return (3, struct.unpack(f"<{len(raw) // 4}I", raw), None)


__all__ = ["from_history", "history", "rebuild", "resume", "round_json", "snapshot"]
