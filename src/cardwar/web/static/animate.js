// The animation layer: plays one battle record over a table that the page has already drawn where
// it ends up. Cards fly from each seat's pile to their place (FLIP: measure the pile, measure the
// card in its last place, invert with a transform, play), a war lays its face-down cards, and the
// won cards travel to the winner's pile while the counts change. Every call returns a promise the
// controls await; `skip()` brings any battle in progress to its end at once.

/** Every duration is multiplied by this: 0 when the person asked for reduced motion. */
export const MOTION = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : 1;

// Milliseconds at tempo 1: a plain battle (fly, hold, travel) takes under half a second.
const DURATION = { fly: 150, stagger: 30, hold: 70, war: 240, travel: 170, trail: 10 };
const EASE = "cubic-bezier(.2, .7, .3, 1)";

/** How long a plain battle (two cards, no war) takes from the press to the pile, at tempo 1. */
export const PLAIN_BATTLE_MS =
  DURATION.stagger + DURATION.fly + DURATION.hold + DURATION.trail + DURATION.travel;

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

export class Stage {
  /**
   * `table` holds the seats and the slots; `hooks.setCounts(counts)` shows pile counts while
   * cards move, `hooks.flight` is an overlay for cards in the air, `hooks.burst` says "War!".
   */
  constructor(table, hooks) {
    this.table = table;
    this.hooks = hooks;
    this.skipping = false;
    this.running = false;
    this.animations = new Set();
    this.timers = new Set();
  }

  /** Bring the battle in progress, if any, to its end now. */
  skip() {
    if (!this.running) return;
    this.skipping = true;
    for (const animation of this.animations) animation.finish();
    for (const timer of this.timers) timer.done();
  }

  ms(name, tempo) {
    return this.skipping ? 0 : DURATION[name] * tempo * MOTION;
  }

  animate(element, frames, duration, delay = 0) {
    if (duration <= 0) return Promise.resolve();
    const animation = element.animate(frames, { duration, delay, easing: EASE, fill: "backwards" });
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
    return this.table.querySelector(`[data-seat="${seat}"] .stack`);
  }

  /**
   * Play `battle` (its cards already drawn in the slots, one `.card` per card laid, seat by seat in
   * the order laid) starting from the pile `counts` before it. `tempo` scales every duration.
   */
  async battle(battle, counts, tempo = 1) {
    const slots = [...this.table.querySelectorAll(".slot")];
    const cards = slots.map((slot) => [...slot.querySelectorAll(".card")]);
    const winnerSlot = battle.winner === null ? null : slots[battle.winner];
    if (this.ms("fly", tempo) === 0) {
      this.hooks.setCounts(battle.counts);
      return;
    }
    this.running = true;
    const shown = [...counts];
    // Cards that go to the winner are drawn dimmed at rest; they fly in bright.
    const spent = cards.flat().filter((card) => card.classList.contains("spent"));
    try {
      winnerSlot?.classList.remove("winner");
      for (const card of spent) card.classList.remove("spent");
      for (const list of cards) for (const card of list) card.classList.add("pending");
      this.hooks.setCounts(shown);
      const next = cards.map(() => 0);
      for (const [index, step] of battle.steps.entries()) {
        if (index > 0) {
          await this.wait(this.ms("hold", tempo));
          this.animate(this.hooks.burst, [
            { opacity: 0, transform: "scale(.6)" },
            { opacity: 1, transform: "scale(1.08)", offset: 0.35 },
            { opacity: 1, transform: "scale(1)", offset: 0.7 },
            { opacity: 0, transform: "scale(1)" },
          ], this.ms("war", tempo) * 2);
        }
        const flights = [];
        let order = 0;
        step.up.forEach((code, seat) => {
          const laid = step.down[seat] + (code === null ? 0 : 1);
          if (laid === 0) return;
          const from = this.pile(seat).getBoundingClientRect();
          for (const card of cards[seat].slice(next[seat], next[seat] + laid)) {
            const to = card.getBoundingClientRect();
            const [a, b] = [centre(from), centre(to)];
            const scale = from.width / Math.max(to.width, 1);
            const turn = card.classList.contains("face") ? " rotateY(90deg)" : "";
            card.classList.remove("pending");
            flights.push(this.animate(card, [
              { transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(${scale})${turn}` },
              { transform: "none" },
            ], this.ms("fly", tempo), order * this.ms("stagger", tempo)));
            order += 1;
          }
          next[seat] += laid;
          shown[seat] -= laid;
        });
        this.hooks.setCounts(shown);
        await Promise.all(flights);
      }
      for (const list of cards) for (const card of list) card.classList.remove("pending");
      winnerSlot?.classList.add("winner");
      await this.wait(this.ms("hold", tempo));
      if (battle.winner !== null) {
        for (const card of spent) card.classList.add("spent"); // they leave for the winner
        await this.travel(cards.flat(), battle.winner, tempo);
      }
    } finally {
      for (const list of cards) for (const card of list) card.classList.remove("pending");
      for (const card of spent) card.classList.add("spent");
      winnerSlot?.classList.add("winner");
      this.hooks.setCounts(battle.counts);
      this.hooks.flight.replaceChildren();
      this.running = false;
      this.skipping = false;
    }
  }

  /** The won cards, face down, travel from the table to the winner's pile. */
  async travel(cards, winner, tempo) {
    const target = this.pile(winner).getBoundingClientRect();
    const end = centre(target);
    const trips = cards.map((card, i) => {
      const from = card.getBoundingClientRect();
      const ghost = this.hooks.ghost();
      ghost.style.left = `${from.left}px`;
      ghost.style.top = `${from.top}px`;
      ghost.style.width = `${from.width}px`;
      ghost.style.height = `${from.height}px`;
      this.hooks.flight.append(ghost);
      const start = centre(from);
      const scale = target.width / Math.max(from.width, 1);
      return this.animate(ghost, [
        { transform: "none", opacity: 0.95 },
        { transform: `translate(${end.x - start.x}px, ${end.y - start.y}px) scale(${scale})`, opacity: 0.9 },
      ], this.ms("travel", tempo), i * this.ms("trail", tempo)).then(() => ghost.remove());
    });
    await Promise.all(trips);
  }
}
