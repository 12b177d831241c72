// Display preferences: the colour scheme, four-colour suits and extra-large cards, each
// remembered by this browser and shown as an attribute on <html>: `data-theme` ("light" or "dark";
// absent, the device's own choice), `data-suits="four"`, `data-cards="large"`. style.css follows
// those and `data-scheme`, the scheme that applies ("light" or "dark"), the device's included:
// this script follows the device's choice as it changes, so the dark colours are written once.
//
// A classic script, not a module: index.html loads it first thing in <body>, so it runs before
// the table below it is parsed and the page never shows the wrong colours first. Its controls, in
// the Table settings, are wired once the page is parsed. It also marks every suit sign (♠ ♥ ♦ ♣)
// in the page's words with the class art.js gives that suit, so four-colour suits colour the words
// the way they colour the cards.
(() => {
  const root = document.documentElement;
  const KEYS = { theme: "cardwar.theme", suits: "cardwar.suits", cards: "cardwar.cards" };
  const THEMES = ["system", "light", "dark"];

  const read = (key) => {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null; // storage turned off: the page's own defaults
    }
  };
  const write = (key, value) => {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      // storage turned off: the choice lasts as long as the page
    }
  };

  /** The choices as this browser keeps them, each checked. */
  function choices() {
    const theme = read(KEYS.theme);
    return {
      theme: THEMES.includes(theme) ? theme : "system",
      four: read(KEYS.suits) === "four",
      large: read(KEYS.cards) === "large",
    };
  }

  const device = window.matchMedia("(prefers-color-scheme: dark)");

  function apply({ theme, four, large }) {
    if (theme === "system") delete root.dataset.theme;
    else root.dataset.theme = theme;
    root.dataset.scheme = theme === "system" ? (device.matches ? "dark" : "light") : theme;
    if (four) root.dataset.suits = "four";
    else delete root.dataset.suits;
    if (large) root.dataset.cards = "large";
    else delete root.dataset.cards;
  }

  apply(choices());

  // -- The controls -------------------------------------------------------------------------------

  let els = null;

  function show({ theme, four, large }) {
    if (!els) return;
    els.theme.value = theme;
    els.suits.setAttribute("aria-pressed", String(four));
    els.large.setAttribute("aria-pressed", String(large));
  }

  function choose(key, value) {
    write(key, value);
    const now = choices();
    apply(now);
    show(now);
  }

  function wire() {
    els = {
      theme: document.getElementById("pref-theme"),
      suits: document.getElementById("pref-suits"),
      large: document.getElementById("pref-large"),
    };
    if (!els.theme || !els.suits || !els.large) {
      els = null;
      return;
    }
    show(choices());
    els.theme.addEventListener("change", () => choose(KEYS.theme, els.theme.value));
    els.suits.addEventListener("click", () =>
      choose(KEYS.suits, els.suits.getAttribute("aria-pressed") === "true" ? "two" : "four"));
    els.large.addEventListener("click", () =>
      choose(KEYS.cards, els.large.getAttribute("aria-pressed") === "true" ? "normal" : "large"));
    markSuits();
  }

  device.addEventListener("change", () => apply(choices()));
  // Another tab of this page changed a choice: follow it here too.
  window.addEventListener("storage", (event) => {
    if (Object.values(KEYS).includes(event.key)) {
      const now = choices();
      apply(now);
      show(now);
    }
  });

  // -- Suit signs in words ------------------------------------------------------------------------

  const SIGNS = { "♠": "S", "♥": "H", "♦": "D", "♣": "C" };
  const FOUND = /[♠♥♦♣]/;
  // Where the page writes words with cards in them. Live regions are left alone: a screen reader
  // would read a sentence again if its text were split after it was said.
  const WORDS = ["#message", "#outcome", "#story-words", ".guide"];
  const SKIP = "svg, [aria-live], [role='alert'], [role='status'], input, select, option, textarea, .suit";

  /** Wrap each suit sign in the text nodes under `node` in a span of its suit's class. */
  function mark(node) {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.nodeValue;
      const parent = node.parentElement;
      if (!FOUND.test(text) || !parent || parent.closest(SKIP)) return;
      const parts = document.createDocumentFragment();
      let from = 0;
      for (let i = 0; i < text.length; i++) {
        const suit = SIGNS[text[i]];
        if (!suit) continue;
        if (i > from) parts.append(text.slice(from, i));
        const sign = document.createElement("span");
        sign.className = `suit suit-${suit}`; // art.js's suitClass
        sign.textContent = text[i];
        parts.append(sign);
        from = i + 1;
      }
      if (from < text.length) parts.append(text.slice(from));
      node.replaceWith(parts);
      return;
    }
    if (node.nodeType === Node.ELEMENT_NODE && !node.matches(SKIP)) {
      for (const child of [...node.childNodes]) mark(child);
    }
  }

  function markSuits() {
    const observer = new MutationObserver((changes) => {
      for (const change of changes) {
        if (change.type === "characterData") mark(change.target);
        else for (const node of change.addedNodes) mark(node);
      }
    });
    for (const selector of WORDS) {
      for (const element of document.querySelectorAll(selector)) {
        mark(element);
        observer.observe(element, { childList: true, characterData: true, subtree: true });
      }
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
