// A battle as plain data for the table to lay out: what each seat laid, where along its row each
// card sits, and who the battle put out. Pure functions of the server's battle (docs/api.md).

/**
 * What each seat laid in a battle, card by card in the order laid: `{kind: "down", letter}` or
 * `{kind: "up", code}`. A war of three face-down cards spells W-A-R on them. Once the battle is
 * won, every card but the winning one is `spent`: it has gone to the winner's pile.
 */
export function laidBySeat(battle, players) {
  const seats = Array.from({ length: players }, () => []);
  for (const step of battle.steps) {
    step.up.forEach((code, seat) => {
      const down = step.down[seat];
      const spells = down === 3 && code !== null;
      for (let i = 0; i < down; i++) seats[seat].push({ kind: "down", letter: spells ? "WAR"[i] : "", spent: false });
      if (code !== null) seats[seat].push({ kind: "up", code, spent: false });
    });
  }
  if (battle.winner !== null) {
    const mine = seats[battle.winner];
    const winning = mine.map((item) => item.kind).lastIndexOf("up");
    for (const items of seats) for (const item of items) item.spent = true;
    if (winning >= 0) mine[winning].spent = false;
  }
  return seats;
}

// How far along a seat's row each laid card sits, in card widths: a face-up card leaves room to
// read it, face-down cards overlap more. The page squeezes the row when the slot is narrower.
const AFTER_UP = 0.5;
const AFTER_DOWN = 0.34;

/** Each item's place along its row, `t` from 0 (first) to 1 (last), and the row's `span`. */
export function spread(items) {
  const offsets = [];
  let at = 0;
  items.forEach((item, i) => {
    if (i > 0) at += items[i - 1].kind === "up" ? AFTER_UP : AFTER_DOWN;
    offsets.push(at);
  });
  return { span: at, places: offsets.map((offset) => (at === 0 ? 0 : offset / at)) };
}

/** Seats this battle put out of the round: they laid cards and hold none after it. */
export function knockedOut(battle) {
  return battle.counts.flatMap((count, seat) => {
    const laid = battle.steps.some((step) => step.up[seat] !== null || step.down[seat] > 0);
    return count === 0 && laid ? [seat] : [];
  });
}
