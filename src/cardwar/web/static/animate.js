// The animation layer: plays one battle record over a table that the page has already drawn where
// it ends up. Cards fly from each seat's pile to their place (FLIP: measure the pile, measure the
// card in its last place, invert with a transform, play); a face-up card lands face down and turns
// over (a back turns edge-on, then the face turns from edge-on: a flip, not a fade); a war lays its
// face-down cards; the won cards travel to the winner's pile while the counts change. A new round
// deals the piles out. Every call returns a promise the controls await; `skip()` brings whatever
// is in progress to its end at once. The hooks a battle is given say what happens as it happens
// on the table, so the words and the sounds follow the cards.

/** Every duration is multiplied by this: 0 when the person asked for reduced motion. */
export const MOTION = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : 1;

// Milliseconds at tempo 1. A face-up card turns in the last part of its flight (`flip` is both
// halves of the turn: the back to edge-on, then the face from edge-on).
const DURATION = {
  fly: 140, flip: 130, stagger: 25, hold: 65, war: 240, travel: 160, trail: 10, deal: 170, dealGap: 45,
};
const EASE = "cubic-bezier(.2, .7, .3, 1)";
const DEPTH = "perspective(700px)"; // a card turning looks like a card, not a squeeze
const DEAL_ROUNDS = 4; // the cards seen dealt to each pile: enough to read as a deal, over quickly

/** How long a plain battle (two cards, no war) takes from the press to the pile, at tempo 1. */
export const PLAIN_BATTLE_MS =
  DURATION.stagger + DURATION.fly + DURATION.flip / 2 + DURATION.hold + DURATION.trail + DURATION.travel;

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

export class Stage {
  /**
   * `table` holds the seats and the slots; `parts.setCounts(counts)` shows pile counts while
   * cards move, `parts.flight` is an overlay for cards in the air, `parts.burst` says "War!",
   * `parts.ghost()` makes a face-down card for the air.
   */
  constructor(table, parts) {
    this.table = table;
    this.parts = parts;
    this.skipping = false;
    this.running = false;
    this.animations = new Set();
    this.timers = new Set();
    this.burst = null;
  }

  /** Bring the battle or deal in progress, if any, to its end now. */
  skip() {
    if (!this.running) return;
    this.skipping = true;
    for (const animation of this.animations) animation.finish();
    for (const timer of this.timers) timer.done();
  }

  ms(name, tempo) {
    return this.skipping ? 0 : DURATION[name] * tempo * MOTION;
  }

  animate(element, frames, duration, delay = 0, easing = EASE) {
    if (duration <= 0) return Promise.resolve();
    const animation = element.animate(frames, { duration, delay, easing, fill: "backwards" });
    this.animations.add(animation);
    return animation.finished.catch(() => {}).finally(() => this.animations.delete(animation));
  }

  wait(duration) {
    if (duration <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = { done: () => { clearTimeout(timer.id); this.timers.delete(timer); resolve(); } };
      timer.id = setTimeout(timer.done, duration);
      this.timers.add(timer);
    });
  }

  pile(seat) {
    return this.table.querySelector(`.seat[data-seat="${seat}"] .stack`);
  }

  /** A face-down card in the air over `rect` (a card's place on the page). */
  ghostAt(rect) {
    const ghost = this.parts.ghost();
    ghost.style.left = `${rect.left}px`;
    ghost.style.top = `${rect.top}px`;
    ghost.style.width = `${rect.width}px`;
    ghost.style.height = `${rect.height}px`;
    this.parts.flight.append(ghost);
    return ghost;
  }

  /**
   * Play `battle` (its cards already drawn in the slots, one `.card` per card laid, seat by seat in
   * the order laid) starting from the pile `counts` before it. `tempo` scales every duration.
   * `hooks.onTurn(step)` is called as the cards of step `step` are laid (0 the first turn),
   * `hooks.onWar(step)` as war step `step` is declared, before its cards go down, `hooks.onLand()`
   * as the result lands and `hooks.onSweep()` as the won cards leave for the winner's pile.
   * With `holdAt`, the battle stops once that war step is declared ("War!" stays up, the deciding
   * cards unturned) and the promise gives "held"; `resumeAt` plays it on from that step later.
   */
  async battle(battle, counts, tempo = 1, hooks = {}, { holdAt = null, resumeAt = 0 } = {}) {
    const slots = [...this.table.querySelectorAll(".slot")];
    const cards = slots.map((slot) => [...slot.querySelectorAll(".card")]);
    const winnerSlot = battle.winner === null ? null : slots[battle.winner];
    this.running = true;
    this.parts.burst.style.removeProperty("opacity");
    const shown = [...counts];
    const next = cards.map(() => 0);
    // Cards that go to the winner are drawn dimmed at rest; they fly in bright.
    const spent = cards.flat().filter((card) => card.classList.contains("spent"));
    let held = false;
    try {
      winnerSlot?.classList.remove("winner");
      for (const card of spent) card.classList.remove("spent");
      for (const list of cards) for (const card of list) card.classList.add("pending");
      for (const [index, step] of battle.steps.entries()) {
        if (index < resumeAt) { // laid before the hold: on the table already
          this.lay(step, cards, next, shown, 0);
          continue;
        }
        if (index > 0 && index === resumeAt) {
          this.sayWar(tempo, true);
        } else if (index > 0) {
          await this.wait(this.ms("hold", tempo));
          hooks.onWar?.(index);
          if (index === holdAt && !this.skipping) {
            held = true;
            this.parts.setCounts(shown);
            this.burst?.cancel();
            this.burst = null;
            this.placeBurst();
            this.parts.burst.style.opacity = "1"; // "War!" stays up while the war waits
            return "held";
          }
          this.sayWar(tempo);
          await this.wait(this.ms("war", tempo)); // "War!" is read before the cards go down
        }
        const flights = this.lay(step, cards, next, shown, tempo);
        hooks.onTurn?.(index);
        this.parts.setCounts(shown);
        await Promise.all(flights);
      }
      for (const list of cards) for (const card of list) card.classList.remove("pending");
      winnerSlot?.classList.add("winner");
      hooks.onLand?.();
      await this.wait(this.ms("hold", tempo));
      if (battle.winner !== null) {
        for (const card of spent) card.classList.add("spent"); // they leave for the winner
        hooks.onSweep?.();
        await this.travel(cards.flat(), battle.winner, tempo);
      }
      return "done";
    } finally {
      if (!held) {
        for (const list of cards) for (const card of list) card.classList.remove("pending");
        for (const card of spent) card.classList.add("spent");
        winnerSlot?.classList.add("winner");
        this.parts.setCounts(battle.counts);
        this.burst?.cancel(); // "War!" belongs to this battle only
        this.burst = null;
      }
      this.parts.flight.replaceChildren();
      this.running = false;
      this.skipping = false;
    }
  }

  /** "WAR!" pops up between the rows, stays whole while the war's cards go down and turn, and
   * goes as they land; `held`: it was up already, held there while the war waited, and only
   * stays until the deciding cards have turned. */
  sayWar(tempo, held = false) {
    const duration = this.ms("war", tempo) * 2 + this.ms("fly", tempo) + this.ms("flip", tempo);
    if (duration <= 0) return;
    if (!held) this.placeBurst();
    this.burst?.cancel();
    this.burst = this.parts.burst.animate(held ? [
      { opacity: 1, transform: "scale(1)", offset: 0 },
      { opacity: 1, transform: "scale(1)", offset: 0.85 },
      { opacity: 0, transform: "scale(1)" },
    ] : [
      { opacity: 0, transform: "scale(.5)" },
      { opacity: 1, transform: "scale(1.12)", offset: 0.12 },
      { opacity: 1, transform: "scale(1)", offset: 0.2 },
      { opacity: 1, transform: "scale(1)", offset: 0.88 },
      { opacity: 0, transform: "scale(1)" },
    ], { duration, easing: "linear" });
    this.animations.add(this.burst);
    const burst = this.burst;
    burst.finished.catch(() => {}).finally(() => this.animations.delete(burst));
  }

  /** Put "WAR!" between two rows of cards on the table, in the gap between a card and the one
   * under it, its left edge past the corner where the lower card shows its rank (the upper
   * card's shows at its top, far above): the tied ranks stay in view. With no such pair of
   * cards it stays where the style puts it, in the middle of the field. */
  placeBurst() {
    const burst = this.parts.burst;
    for (const side of ["left", "top", "margin"]) burst.style.removeProperty(side);
    const frame = burst.offsetParent?.getBoundingClientRect();
    const laid = [...this.table.querySelectorAll(".slot .card:not(.pending)")]
      .map((card) => card.getBoundingClientRect())
      .filter((box) => box.width > 0);
    if (!frame || laid.length < 2) return;
    let best = null;
    for (const upper of laid) {
      for (const lower of laid) {
        const stacked = upper.bottom <= lower.top + lower.height * 0.2;
        const sameColumn = upper.left < lower.right && lower.left < upper.right;
        if (!stacked || !sameColumn) continue;
        const middle = (upper.bottom + lower.top) / 2;
        const off = Math.abs(middle - (frame.top + frame.height / 2));
        if (!best || off < best.off) best = { off, middle, lower };
      }
    }
    if (!best) return;
    const { width, height } = burst.getBoundingClientRect();
    const left = Math.min(best.lower.left + best.lower.width * 0.32, frame.right - width - 4);
    burst.style.margin = "0";
    burst.style.left = `${Math.max(0, left - frame.left)}px`;
    burst.style.top = `${best.middle - height / 2 - frame.top}px`;
  }

  /** Lay one step's cards, seat by seat: each flies from its pile, a face-up one turning over as
   * it lands. Returns the flights' promises; `shown` counts go down as the cards leave. */
  lay(step, cards, next, shown, tempo) {
    const flights = [];
    let order = 0;
    const fly = this.ms("fly", tempo);
    const half = this.ms("flip", tempo) / 2;
    step.up.forEach((code, seat) => {
      const laid = step.down[seat] + (code === null ? 0 : 1);
      if (laid === 0) return;
      const from = fly > 0 ? this.pile(seat).getBoundingClientRect() : null;
      for (const card of cards[seat].slice(next[seat], next[seat] + laid)) {
        card.classList.remove("pending");
        if (fly <= 0) continue;
        const to = card.getBoundingClientRect();
        const [a, b] = [centre(from), centre(to)];
        const [dx, dy] = [a.x - b.x, a.y - b.y];
        const scale = from.width / Math.max(to.width, 1);
        const delay = order * this.ms("stagger", tempo);
        order += 1;
        if (!card.classList.contains("face")) {
          flights.push(this.animate(card, [
            { transform: `translate(${dx}px, ${dy}px) scale(${scale})` },
            { transform: "none" },
          ], fly, delay));
          continue;
        }
        // The card comes face down (its back in the air over it), the back turns edge-on as it
        // lands, then the face turns up from edge-on.
        const back = this.ghostAt(to);
        const turn = Math.max(0, Math.min(1, (fly - half) / fly));
        const at = 1 - turn; // how much of the way is left when the back starts to turn
        flights.push(this.animate(back, [
          { transform: `translate(${dx}px, ${dy}px) scale(${scale}) ${DEPTH} rotateY(0deg)` },
          {
            transform: `translate(${dx * at}px, ${dy * at}px) scale(${1 + (scale - 1) * at}) ${DEPTH} rotateY(0deg)`,
            offset: turn,
          },
          { transform: `translate(0px, 0px) scale(1) ${DEPTH} rotateY(90deg)` },
        ], fly, delay, "linear").then(() => back.remove()));
        flights.push(this.animate(card, [
          { transform: `${DEPTH} rotateY(-90deg)` },
          { transform: `${DEPTH} rotateY(0deg)` },
        ], half, delay + fly, "ease-out"));
      }
      next[seat] += laid;
      shown[seat] -= laid;
    });
    return flights;
  }

  /** The won cards, face down, travel from the table to the winner's pile. */
  async travel(cards, winner, tempo) {
    const duration = this.ms("travel", tempo);
    if (duration <= 0) return;
    const target = this.pile(winner).getBoundingClientRect();
    const end = centre(target);
    const trips = cards.map((card, i) => {
      const from = card.getBoundingClientRect();
      const ghost = this.ghostAt(from);
      const start = centre(from);
      const scale = target.width / Math.max(from.width, 1);
      return this.animate(ghost, [
        { transform: "none", opacity: 0.95 },
        { transform: `translate(${end.x - start.x}px, ${end.y - start.y}px) scale(${scale})`, opacity: 0.9 },
      ], duration, i * this.ms("trail", tempo)).then(() => ghost.remove());
    });
    await Promise.all(trips);
  }

  /** Deal the piles out: cards fly from the middle of the table to each pile in turn, round the
   * table, and each pile's count climbs to `counts`. `hooks.onCard()` as each card lands. */
  async deal(counts, hooks = {}) {
    const duration = this.ms("deal", 1);
    if (duration <= 0) {
      this.parts.setCounts(counts);
      return;
    }
    this.running = true;
    try {
      const shown = counts.map(() => 0);
      this.parts.setCounts(shown);
      const middle = centre(this.table.querySelector(".field").getBoundingClientRect());
      const seats = counts.flatMap((count, seat) => (count > 0 ? [seat] : []));
      const gap = this.ms("dealGap", 1) * Math.min(1, 2 / Math.max(seats.length, 1)) * 1.5;
      const trips = [];
      for (let round = 1; round <= DEAL_ROUNDS; round++) {
        for (const seat of seats) {
          const pile = this.pile(seat).getBoundingClientRect();
          const height = pile.width * 1.4; // the pile's top card, wherever its edge reaches
          const rect = { left: pile.left, top: pile.bottom - height, width: pile.width, height };
          const ghost = this.ghostAt(rect);
          const start = centre(rect);
          const delay = trips.length * gap;
          trips.push(this.animate(ghost, [
            { transform: `translate(${middle.x - start.x}px, ${middle.y - start.y}px) rotate(-12deg) scale(.9)` },
            { transform: "none" },
          ], duration, delay).then(() => {
            ghost.remove();
            shown[seat] = Math.round((counts[seat] * round) / DEAL_ROUNDS);
            this.parts.setCounts(shown);
            hooks.onCard?.();
          }));
        }
      }
      await Promise.all(trips);
    } finally {
      this.parts.setCounts(counts);
      this.parts.flight.replaceChildren();
      this.running = false;
      this.skipping = false;
    }
  }
}
