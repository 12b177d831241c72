// A round's end: its story, its replay, its deal dealt again or shared as a link.
import { act } from "./act.js";
import { $, copyField } from "./dom.js";
import { openReplay } from "./replay.js";
import { dealAgain } from "./rounds.js";
import { peopleAt, seatWords } from "./seats.js";
import { dealOf, isLoopback, shareLink } from "./share.js";
import { frozen, state, ui } from "./state.js";
import { storyOf } from "./stories.js";
import { battleAt, resultDetails, storySvg, storyWords } from "./story.js";
import { showDetails } from "./table.js";
import { consolation, matchConsolation } from "./tell.js";

const els = {
  after: $("after"),
  replayDeal: $("replay-deal"),
  shareDeal: $("share-deal"),
  watch: $("watch"),
  story: $("story"),
  storyChart: $("story-chart"),
  share: $("share"),
  shareLink: $("share-link"),
  shareStatus: $("share-status"),
  shareLocal: $("share-local"),
  shareSend: $("share-send"),
  shareCopy: $("share-copy"),
};

const again = () => state.round && dealOf(state.round, state.info?.presets.classic);

export function drawRoundEnd(shown) {
  if (frozen() || !shown.ready) return;
  if (state.live) { // a live table's rounds are the table's: no story, replay or link of them here
    els.after.hidden = true;
    els.story.hidden = true;
    return;
  }
  const over = shown.outcome !== null;
  els.after.hidden = !over;
  const deal = over ? again() : null;
  els.replayDeal.hidden = deal === null;
  els.shareDeal.hidden = deal === null;
  els.watch.hidden = state.round.battles === 0;
  if (!state.busy) drawStory(over ? state.round : null); // asked once the round's requests are done
}

async function drawStory(round) {
  const story = ui.story;
  if (round === null || round.battles === 0) {
    els.story.hidden = true;
    if (round) showDetails(round.id, null);
    return;
  }
  if (story.roundId === round.id) return;
  story.roundId = round.id;
  story.data = null;
  showDetails(round.id, null); // the last round's are not this one's
  const data = await storyOf(round);
  if (data === null) {
    if (story.roundId !== round.id) return;
    story.roundId = null; // asked again at the next draw
    els.story.hidden = true;
    showDetails(round.id, null);
    return;
  }
  if (state.round?.id !== round.id || story.roundId !== round.id) return;
  story.data = data;
  showDetails(round.id, resultDetails(data), kindWords(round, data));
  const { labels, names } = seatWords(round.seats, round.rules.players);
  els.storyChart.innerHTML = storySvg(data, labels);
  $("story-legend").replaceChildren(...labels.map((label, seat) => {
    const item = document.createElement("span");
    item.className = "legend-item";
    item.innerHTML = `<svg class="swatch" viewBox="0 0 24 6" aria-hidden="true"><line class="line s${seat}" x1="0" y1="3" x2="24" y2="3"/></svg>`;
    item.append(label);
    return item;
  }));
  $("story-words").replaceChildren(...storyWords(data, names).map((text) => {
    const item = document.createElement("li");
    item.textContent = text;
    return item;
  }));
  els.story.hidden = false;
}

/** A few kind words when a computer won the round, or the match it decided; null otherwise. */
function kindWords(round, story) {
  const winner = round.outcome?.winner ?? null;
  const { names } = seatWords(round.seats, round.rules.players);
  const people = peopleAt(round.rules.players, round.seats);
  const match = state.match;
  if (match?.over && match.id === round.match_id && match.rounds.at(-1)?.id === round.id) {
    return people.includes(match.winner) ? null : matchConsolation(match, names);
  }
  return winner === null || people.includes(winner) ? null : consolation(story, names, round.out_at, round.counts);
}

/** Watch the battle under a click on the story chart. */
export function watchFromChart(event) {
  const svg = els.storyChart.querySelector("svg");
  const story = ui.story;
  if (!svg || !story.data || state.round?.id !== story.roundId) return;
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
  openReplay(state.round, battleAt(point.x, story.data.battles), els.watch);
}

export function watchReplay() {
  if (state.round?.battles > 0) openReplay(state.round, 1, els.watch);
}

export function replayDeal() {
  const deal = again();
  if (!deal) return;
  act(async () => {
    await dealAgain(deal, "replay");
    return null;
  }, els.replayDeal);
}

/** The device's own share sheet, where the browser offers one for this link. */
function canShareSheet(url) {
  if (typeof navigator.share !== "function") return false;
  return typeof navigator.canShare !== "function" || navigator.canShare({ url });
}

export function openShare() {
  const deal = again();
  if (!deal) return;
  // From the address this page was opened at: the one its players can reach it by.
  const { origin, hostname, protocol, port } = window.location;
  const link = shareLink(origin, deal);
  els.shareLink.value = link;
  els.shareStatus.textContent = "";
  els.shareLocal.hidden = !isLoopback(hostname);
  $("share-host").textContent = hostname;
  $("share-example").textContent = `${protocol}//192.168.1.20${port ? `:${port}` : ""}`;
  const sheet = canShareSheet(link);
  els.shareSend.hidden = !sheet;
  els.shareCopy.classList.toggle("primary", !sheet);
  els.share.showModal();
  els.shareLink.select();
  els.shareLink.scrollLeft = 0; // the address first, where the eye starts
}

export const copyShareLink = () => copyField(els.shareLink, els.shareStatus, "Copied: paste it wherever you like.");

/** Share the link through the device's share sheet; copied instead if the sheet fails. */
export async function sendShareLink() {
  const url = els.shareLink.value;
  try {
    await navigator.share({ title: "A deal of War", text: "Play this deal of War: the same cards for everyone who opens it.", url });
    els.shareStatus.textContent = "Shared.";
  } catch (error) {
    if (error?.name === "AbortError") return; // closed without choosing: nothing to say
    await copyShareLink();
  }
}

export const closeShare = () => els.share.close();
