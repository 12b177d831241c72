// Sound, made by the page itself with Web Audio (nothing is fetched): a card turning, a war, cards
// swept to a pile, a win and a loss; and, where the device has it, a short buzz on a war. The
// Sound button turns both on and off, and each browser remembers its choice. Nothing sounds, and
// no AudioContext exists, before the player's first press: browsers allow sound only after one.

const KEY = "cardwar.sound";
const AGAIN_MS = 45; // the same sound twice within this is heard once (a run of battles at once)

// Each sound is a few notes: an oscillator `type` at `hz` (gliding to `to`), starting `at` ms in,
// lasting `ms`, at `gain`; `noise` adds filtered noise (the rustle of a card). The first note's
// pitch is each sound's own.
export const SOUNDS = {
  flip: {
    notes: [{ type: "triangle", hz: 1400, to: 900, at: 0, ms: 35, gain: 0.08 }],
    noise: { filter: "highpass", hz: 2200, ms: 45, gain: 0.35 },
  },
  war: {
    notes: [
      { type: "sine", hz: 150, to: 55, at: 0, ms: 260, gain: 0.7 },
      { type: "square", hz: 196, at: 110, ms: 110, gain: 0.06 },
      { type: "square", hz: 294, at: 220, ms: 240, gain: 0.07 },
    ],
  },
  sweep: {
    notes: [{ type: "sine", hz: 620, to: 300, at: 0, ms: 180, gain: 0.04 }],
    noise: { filter: "bandpass", hz: 900, to: 350, ms: 240, gain: 0.4 },
  },
  win: {
    notes: [523.25, 659.25, 783.99, 1046.5].map((hz, i) => ({
      type: "triangle", hz, at: i * 110, ms: i === 3 ? 480 : 170, gain: 0.22,
    })),
  },
  loss: {
    notes: [392, 349.23, 311.13, 261.63].map((hz, i) => ({
      type: "sine", hz, at: i * 180, ms: i === 3 ? 560 : 220, gain: 0.22,
    })),
  },
};

// The choice, whether the player has pressed yet, and the audio made once they have.
const kit = { on: remembered(), pressed: false, context: null, out: null, noise: null, last: new Map() };

function remembered() {
  try {
    return window.localStorage.getItem(KEY) !== "off";
  } catch {
    return true; // storage turned off: sound on, for as long as the page lasts
  }
}

/** The Sound button as the choice stands: pressed when on. Its name stays "Sound", as a toggle
 * button's should (a screen reader says "pressed" or "not pressed"; the switch's look shows it). */
export function drawSoundButton(button) {
  button.setAttribute("aria-pressed", String(kit.on));
}

/** The Sound button's click: on becomes off and off on, remembered by this browser. */
export function toggleSound(event) {
  const button = event.currentTarget;
  kit.on = !kit.on;
  try {
    window.localStorage.setItem(KEY, kit.on ? "on" : "off");
  } catch {
    // storage turned off: the choice lasts as long as the page
  }
  drawSoundButton(button);
  if (kit.on) sound("flip"); // so the player hears that it is on
}

/** The player has pressed something: from now on the page may sound. */
export function pressed() {
  kit.pressed = true;
}

function audio() {
  if (!kit.context) {
    const Context = window.AudioContext ?? window.webkitAudioContext;
    if (!Context) return null;
    const context = new Context();
    const out = context.createGain();
    out.gain.value = 0.6;
    out.connect(context.destination);
    const noise = context.createBuffer(1, Math.ceil(context.sampleRate * 0.5), context.sampleRate);
    const samples = noise.getChannelData(0);
    for (let i = 0; i < samples.length; i++) samples[i] = Math.random() * 2 - 1;
    Object.assign(kit, { context, out, noise });
  }
  if (kit.context.state === "suspended") kit.context.resume().catch(() => {});
  return kit.context;
}

/** An envelope: silent, up to `gain` at once, down to silence by `end` (seconds). */
function envelope(context, start, end, gain) {
  const node = context.createGain();
  node.gain.setValueAtTime(0.0001, start);
  node.gain.exponentialRampToValueAtTime(gain, start + 0.008);
  node.gain.exponentialRampToValueAtTime(0.0001, end);
  node.connect(kit.out);
  return node;
}

/** Play sound `name` (one of SOUNDS), if sound is on and the player has pressed something. */
export function sound(name) {
  if (!kit.on || !kit.pressed) return;
  const now = performance.now();
  if (now - (kit.last.get(name) ?? -Infinity) < AGAIN_MS) return;
  kit.last.set(name, now);
  const context = audio();
  if (!context) return;
  const { notes, noise } = SOUNDS[name];
  const t0 = context.currentTime + 0.01;
  for (const note of notes) {
    const start = t0 + note.at / 1000;
    const end = start + note.ms / 1000;
    const oscillator = context.createOscillator();
    oscillator.type = note.type;
    oscillator.frequency.value = note.hz;
    oscillator.frequency.setValueAtTime(note.hz, start);
    if (note.to) oscillator.frequency.exponentialRampToValueAtTime(note.to, end);
    oscillator.connect(envelope(context, start, end, note.gain));
    oscillator.start(start);
    oscillator.stop(end + 0.02);
  }
  if (noise) {
    const end = t0 + noise.ms / 1000;
    const source = context.createBufferSource();
    source.buffer = kit.noise;
    const filter = context.createBiquadFilter();
    filter.type = noise.filter;
    filter.frequency.setValueAtTime(noise.hz, t0);
    if (noise.to) filter.frequency.exponentialRampToValueAtTime(noise.to, end);
    source.connect(filter).connect(envelope(context, t0, end, noise.gain));
    source.start(t0);
    source.stop(end + 0.02);
  }
}

/** A short buzz on a war, where the device has one (iOS has none), under the Sound choice. */
export function buzz() {
  if (!kit.on || !kit.pressed || typeof navigator.vibrate !== "function") return;
  navigator.vibrate(70);
}
