// The scoreboard under the table, drawn from `state.scoreboard`: this browser's rounds and
// matches, and, once more than one person has played here or someone gave a name, a tally per
// person's name (docs/api.md#me).
import { $ } from "./dom.js";
import { state } from "./state.js";

const els = {
  matches: $("matches-tally"),
  board: $("won").closest(".scoreboard"),
  people: null, // the tally per name, made the first time there is one to show
};

function peopleList() {
  if (!els.people) {
    els.people = document.createElement("ul");
    els.people.className = "people-tally";
    els.people.id = "people-tally";
    els.people.setAttribute("aria-label", "Rounds by name");
    els.board.after(els.people);
  }
  return els.people;
}

/** One line of the tally: "Mia: won 3 · lost 1 · drawn 0". */
function personLine({ name, won, lost, drawn }) {
  const item = document.createElement("li");
  const who = document.createElement("strong");
  who.textContent = name;
  item.append(who, `: won ${won} · lost ${lost} · drawn ${drawn}`);
  return item;
}

/** Draw the scoreboard as the state has it. */
export function drawScoreboard() {
  const board = state.scoreboard;
  for (const [id, count] of [["won", board.won], ["lost", board.lost], ["drawn", board.drawn],
    ["matches-won", board.matches_won], ["matches-lost", board.matches_lost]]) $(id).textContent = String(count);
  els.matches.hidden = board.matches_won + board.matches_lost === 0 && !state.match;
  const people = board.people ?? [];
  // One person called "You" is the scoreboard above, said again: nothing to add.
  const worth = people.length > 1 || people.some((person) => person.name !== "You");
  if (!worth) {
    if (els.people) els.people.hidden = true;
    return;
  }
  const list = peopleList();
  list.replaceChildren(...people.map(personLine));
  list.hidden = false;
}
