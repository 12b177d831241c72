"""Every deal of a small deck: the published tables reproduced exactly, an independent
brute-force reference agreeing with the exact answers, and the figures adding up exactly however
the work is split (ranges, threads).

The tables are Mathieu and Delahaye's (Pour la Science, 1995 and 2025; their code and records are
public) and Courbet's (a C++ enumerator, 2025); docs/findings.md sets them beside ours and says
where and why the two groups' counts differ. The bigger tables (11x1, 12x1, 13x1, 4x4) are in
docs/findings.md with their commands: they take seconds to minutes, too long for the suite.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import numpy as np
import pytest

from cardwar import Rules
from cardwar.sim.exact.deck import SmallDeck, seats_alike
from cardwar.sim.exact.driver import play_every_deal
from cardwar.sim.exact.kernels.packed import bits_for
from cardwar.sim.kernels.codes import REASONS, rules_array

from every_deal import play_each, sequences

FRENCH = Rules(gather="natural", war_down=0, battle_limit=None)  # Mathieu and Delahaye's game
CLASSIC = Rules(battle_limit=None)  # our table with no limit, so that loops show


def figures(rules: Rules, deck: str, **options: Any) -> dict[str, Any]:
    """What the exact answers find for every deal of `deck`."""
    return play_every_deal(rules, SmallDeck.parse(deck), **options).to_dict()


# -- an independent reference: plain Python, every position kept in a set -----------------------


def reference_battle(piles: list[deque[int]], rules: Rules) -> tuple[int | None, bool, int]:
    """One battle on ranks, for two players with `shortage: "lose"`: (the winner or None for a
    draw, whether the round ended by a shortage, wars fought). Written from docs/rules.md."""
    steps = [([piles[0].popleft()], [piles[1].popleft()])]
    wars = 0
    need = rules.war_down + 1
    while steps[-1][0][-1] == steps[-1][1][-1]:
        short = [len(pile) < need for pile in piles]
        if all(short):
            return None, True, wars
        if any(short):
            loser = short.index(True)
            forfeit = list(piles[loser])
            piles[loser].clear()
            steps.append(([], forfeit) if loser == 1 else (forfeit, []))
            winner, fought = 1 - loser, False
            break
        steps.append(tuple([pile.popleft() for _ in range(need)] for pile in piles))  # type: ignore[arg-type]
        wars += 1
    else:
        last = steps[-1]
        winner, fought = (0 if last[0][-1] > last[1][-1] else 1), True
    laid = [(seat, card) for step in steps for seat in (0, 1) for card in step[seat]]
    if rules.gather.value == "winner_first":
        cards = [c for s, c in laid if s == winner] + [c for s, c in laid if s != winner]
    elif rules.gather.value == "table":
        cards = [c for _, c in laid]
    else:  # natural: the winning card, then everything else from the top of the heap down
        heap = laid[::-1]
        if fought:
            heap.remove((winner, steps[-1][winner][-1]))
            heap.insert(0, (winner, steps[-1][winner][-1]))
        cards = [c for _, c in heap]
    piles[winner].extend(cards)
    return winner, not fought, wars


def reference(rules: Rules, deck: SmallDeck) -> dict[str, Any]:
    """Every deal of `deck` played in plain Python, each position kept until one repeats:
    deals, loops, distinct loops (each loop's positions over both seatings, where the seats are
    alike), and the longest round."""
    mirror = deck.cards % 2 == 0 and seats_alike(rules)
    deals = loops = longest = 0
    named: dict[frozenset[tuple[tuple[int, ...], ...]], list[int]] = {}
    for ranks in sequences(deck):
        first, second = ranks[: deck.half], ranks[deck.half :]
        if mirror and first > second:
            continue
        deals += 1
        piles = [deque(first), deque(second)]
        seen: dict[tuple[tuple[int, ...], ...], int] = {}
        battles = 0
        while True:
            position = (tuple(piles[0]), tuple(piles[1]))
            if position in seen:
                loops += 1
                loop = [position]
                copy = [deque(position[0]), deque(position[1])]
                for _ in range(battles - seen[position] - 1):
                    reference_battle(copy, rules)
                    loop.append((tuple(copy[0]), tuple(copy[1])))
                if seats_alike(rules):
                    loop += [(b, a) for a, b in loop]
                named.setdefault(frozenset(loop), [battles - seen[position], 0])[1] += 1
                break
            seen[position] = battles
            winner, shortage, _ = reference_battle(piles, rules)
            battles += 1
            if winner is None or shortage or not piles[0] or not piles[1]:
                longest = max(longest, battles)
                break
    return {
        "deals": deals,
        "cycles": loops,
        "loops": sorted(tuple(value) for value in named.values()),
        "longest": longest,
    }


@pytest.mark.parametrize(
    ("deck", "rules"),
    [("2x4", FRENCH), ("3x4", FRENCH), ("4x2", CLASSIC), ("3x3", FRENCH), ("7x1", CLASSIC)],
    ids=["2x4-natural", "3x4-natural", "4x2-classic", "3x3-natural", "7x1-classic"],
)
def test_the_enumerator_agrees_with_a_brute_force_reference(deck: str, rules: Rules) -> None:
    """Deals, loops, each distinct loop's length and deals, and the longest round, as a plain
    Python player that keeps every position finds them."""
    expected = reference(rules, SmallDeck.parse(deck))
    found = figures(rules, deck)
    loops = sorted((loop["length"], loop["deals"]) for loop in found["distinct_cycles"])
    longest = found["longest"]["battles"] if found["longest"] else 0
    assert (found["deals"], found["cycles"], loops, longest) == (
        expected["deals"], expected["cycles"], expected["loops"], expected["longest"],
    )  # fmt: skip


# -- the published tables ------------------------------------------------------------------------


def test_four_suits_of_two_values_as_published() -> None:
    """Mathieu and Delahaye, 4 suits, 2 values, natural, no card down: 38 deals, none loops;
    their record deal turns 8 cards up (4 battles and 4 wars)."""
    found = figures(FRENCH, "2x4")
    assert (found["deals"], found["cycles"], found["most_turned_up"]["turned_up"]) == (38, 0, 8)


def test_four_suits_of_three_values_as_published() -> None:
    """4 suits, 3 values: 17,370 deals, 360 loop, all into one loop of 19 battles; the
    longest round is 37 battles with 54 cards turned up."""
    found = figures(FRENCH, "3x4")
    assert (found["deals"], found["cycles"]) == (17_370, 360)
    assert found["loop_lengths"] == [{"length": 19, "loops": 1, "deals": 360}]
    assert found["longest"]["battles"] == 37
    assert found["most_turned_up"]["turned_up"] == 54


@pytest.mark.parametrize(
    ("deck", "deals", "longest"), [("4x1", 12, 6), ("6x1", 360, 15), ("8x1", 20_160, 26)]
)
def test_one_suit_decks_as_published(deck: str, deals: int, longest: int) -> None:
    """One suit, the winner's card first: deals, the longest round, and no loop at 4, 6, 8."""
    found = figures(CLASSIC, deck)
    assert (found["deals"], found["longest"]["battles"], found["cycles"]) == (deals, longest, 0)


def test_nine_cards_every_deal_and_mathieu_and_delahayes_half() -> None:
    """9x1 is odd, so every deal is played: 362,880, of which 218,680 loop (Courbet's count of
    all of them too). Mathieu and Delahaye's mirror filter (the first half, of 4 cards, not
    after the second, of 5) keeps only 181,440 of them, half the deals."""
    found = figures(CLASSIC, "9x1")
    assert (found["deals"], found["cycles"], found["longest"]["battles"]) == (362_880, 218_680, 28)
    half = sum(1 for ranks in sequences(SmallDeck.parse("9x1")) if ranks[:4] <= ranks[4:])
    assert half == 181_440


def test_ten_cards_as_published() -> None:
    """10x1: 1,814,400 deals with the mirror once, 197,970 loop, into 48 loops of 60."""
    found = figures(CLASSIC, "10x1")
    assert (found["deals"], found["cycles"], found["longest"]["battles"]) == (
        1_814_400, 197_970, 49,
    )  # fmt: skip
    assert found["loop_lengths"] == [{"length": 60, "loops": 48, "deals": 197_970}]


@pytest.mark.parametrize(
    ("deck", "rules", "loops"), [("3x4", FRENCH, 388), ("10x1", CLASSIC, 206_838)]
)
def test_courbets_first_half_of_the_sequences_is_not_one_of_each_deal(
    deck: str, rules: Rules, loops: int
) -> None:
    """Courbet plays the first half of the sequences in order, with no mirror filter: that is
    not one of each deal and its mirror, and it counts 388 loops for 3x4 (against 360) and
    206,838 for 10x1 (against 197,970). Playing what he plays gives his counts."""
    small = SmallDeck.parse(deck)
    found = figures(rules, deck, every_sequence=True, count=small.sequences // 2 + 1)
    assert found["cycles"] == loops


# -- exact however the work is split -------------------------------------------------------------


def test_ranges_and_threads_add_up_to_the_whole() -> None:
    """A deck's ranges add up to the whole, on one thread or two: every figure, every loop."""
    deck = SmallDeck.parse("3x4")
    whole = play_every_deal(FRENCH, deck, workers=1, records=5)
    parts = play_every_deal(FRENCH, deck, count=10_000, workers=2, records=5)
    for first, count in ((10_000, 7), (10_007, 20_000), (30_007, deck.sequences - 30_007)):
        parts.add(play_every_deal(FRENCH, deck, first=first, count=count, records=5))
    assert parts.to_dict(histograms=True) == whole.to_dict(histograms=True)
    assert parts.records() == whole.records()
    assert len(whole.records()) == 5 and whole.records()[0]["battles"] == 37


def test_each_deal_agrees_however_it_is_played() -> None:
    """The tallies of a whole deck are the sums over its deals played one by one."""
    deck = SmallDeck.parse("3x4")
    rows = np.array([s for s in sequences(deck) if s[:6] <= s[6:]], np.int64)
    out = np.zeros((len(rows), 6 + deck.cards), np.int64)
    play_each(rules_array(FRENCH), rows, bits_for(3), True, out)
    reasons = Counter(REASONS[code].value for code in out[:, 1])
    whole = play_every_deal(FRENCH, deck)
    found = whole.to_dict()
    assert reasons["cycle"] == found["cycles"]
    assert {k: v for k, v in found["reasons"].items() if v} == {
        k: v for k, v in reasons.items() if k != "cycle"
    }
    ended = out[[REASONS[code].value != "cycle" for code in out[:, 1]]]
    assert int(ended[:, 2].sum()) == whole.ended.total_battles
    assert int(ended[:, 3].sum()) == int(whole.ended.counters[2])  # the wars, random_rounds.C_WARS
