"""Battles and outcomes told in words, for the command line and the golden transcripts."""

from __future__ import annotations

from collections.abc import Sequence

from cardwar.cards import Card
from cardwar.records import Battle, Outcome, Reason, Step


def seat_names(players: int) -> tuple[str, ...]:
    """What each seat is called: You, then Computer (or Computer 1-3 at a bigger table)."""
    if players == 2:
        return ("You", "Computer")
    return ("You", *(f"Computer {seat}" for seat in range(1, players)))


def _join(names: Sequence[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _turned(step: Step) -> str:
    return " v ".join(card.label for card in step.up if card is not None)


def _war(step: Step, names: Sequence[str]) -> str:
    """One war step in words: who was short, how many went down, what was turned."""
    parts = []
    fighters = [seat for seat, card in enumerate(step.up) if card is not None]
    for seat in step.short:
        name = names[seat]
        if step.up[seat] is not None:
            whose = "your" if name == "You" else "their"
            parts.append(
                f"{name} {_verb(name, 'is', 'are')} short and fight{_s(name)} on"
                f" with {whose} last card"
            )
        elif step.down[seat]:
            parts.append(
                f"{name} {_verb(name, 'is', 'are')} short and give{_s(name)} up "
                + plural(step.down[seat], "card")
            )
        else:
            parts.append(f"{name} {_verb(name, 'has', 'have')} no card left for the war")
    if fighters:
        downs = {step.down[seat] for seat in fighters}
        if len(downs) == 1:
            parts.append(f"{downs.pop()} down each, {_turned(step)}")
        else:
            laid = ", ".join(f"{names[seat]} {step.down[seat]} down" for seat in fighters)
            parts.append(f"{laid}: {_turned(step)}")
    return "; ".join(parts)


def plural(count: int, noun: str) -> str:
    """`1 card`, `6 cards`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def describe_battle(battle: Battle, names: Sequence[str]) -> str:
    """One line for one battle: `Battle 12: 9♠ v 9♥ — war! 1 down each, K♦ v 7♠ — ...`."""
    first = battle.steps[0]
    text = f"Battle {battle.number}: {_turned(first)}"
    for step in battle.steps[1:]:
        text += f" — war! {_war(step, names)}"
    if battle.winner is None:
        text += " — nobody can finish the war"
    else:
        last = battle.steps[-1]
        win_card = last.up[battle.winner]
        if win_card is None:
            # The winner took the table without turning a card: everyone else was short.
            text += f" — {names[battle.winner]} take{_s(names[battle.winner])} {battle.taken}"
        else:
            beaten = [
                c for seat, c in enumerate(last.up) if c is not None and seat != battle.winner
            ]
            text += f" — {_beats(win_card, beaten)}, "
            text += f"{names[battle.winner]} take{_s(names[battle.winner])} {battle.taken}"
    counts = " · ".join(f"{names[seat]} {count}" for seat, count in enumerate(battle.counts))
    return f"{text}  [{counts}]"


def _beats(card: Card, beaten: Sequence[Card]) -> str:
    if not beaten:
        return card.label
    return f"{card.label} beats {_join([c.label for c in beaten])}"


def _s(name: str) -> str:
    # "You take", "Computer takes".
    return "" if name == "You" else "s"


def _verb(name: str, singular: str, plural: str) -> str:
    # "You are", "Computer is".
    return plural if name == "You" else singular


def describe_outcome(outcome: Outcome, names: Sequence[str], battles: int) -> str:
    """The end of a round in one sentence, for every reason a round can end."""
    winner = None if outcome.winner is None else names[outcome.winner]
    wins = "" if winner is None else f"{winner} win{_s(winner)}"
    others = _join([name for name in names if name != winner])
    text = {
        Reason.ALL_CARDS: f"{wins}: {others} ran out of cards.",
        Reason.OPPONENT_SHORT: f"{wins}: {others} could not finish a war.",
        Reason.BOTH_SHORT: "Draw: every player in the war ran short at the same point.",
        Reason.BATTLE_LIMIT: f"Draw: the battle limit was reached after {battles} battles.",
        Reason.MOST_CARDS: f"{wins}: most cards when the battle limit was reached.",
        Reason.TIME_UP: f"{wins}: most cards when time ran out.",
        Reason.MOST_CARDS_TIE: "Draw: the cards were counted and the leaders tie.",
        Reason.CYCLE: (
            f"Draw: after {battles} battles the piles came back to an earlier order, "
            "so the round would repeat forever."
        ),
    }[outcome.reason]
    return text
