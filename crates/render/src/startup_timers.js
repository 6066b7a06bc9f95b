// Runs in the page's own world before its scripts, in every document of the tab.
// An app shell often asks for its content from a timer it sets while it starts
// (`setTimeout(load, 600)` after DOMContentLoaded): the network is quiet while the
// timer runs, and a render that waits only for a quiet network measures the shell.
// This keeps the one-shot timers of a page's start-up, due within LIMIT_MS, so that
// the renderer can ask how long until the last of them has fired. A timer set from
// a timer's callback is one level deeper; from MAX_DEPTH on it is not kept, so a
// ticker that re-arms itself holds the render for a step or two, never for good.
(() => {
  const LIMIT_MS = 1500;
  const MAX_DEPTH = 2;
  // What a kept timer's callback starts (a fetch) reaches the renderer a moment
  // after the callback returns: the render waits this long after the last one ran.
  const GRACE_MS = 100;
  const setTimer = window.setTimeout;
  const clearTimer = window.clearTimeout;
  const now = performance.now.bind(performance);
  const due = new Map();
  let depth = 0;
  let lastRan = -Infinity;

  window.setTimeout = function setTimeout(handler, delay, ...args) {
    if (typeof handler !== "function") {
      return setTimer(handler, delay, ...args);
    }
    const level = depth + 1;
    const ms = Math.max(0, Number(delay) || 0);
    const kept = ms <= LIMIT_MS && depth < MAX_DEPTH;
    const id = setTimer(function () {
      due.delete(id);
      const outer = depth;
      depth = level;
      try {
        return handler.apply(this, args);
      } finally {
        depth = outer;
        if (kept) {
          lastRan = now();
        }
      }
    }, delay);
    if (kept) {
      due.set(id, now() + ms);
    }
    return id;
  };
  window.clearTimeout = function clearTimeout(id) {
    due.delete(id);
    return clearTimer(id);
  };
  // Milliseconds the render should still wait: until the last kept timer has fired
  // (at least 1 while one is kept: a timer past due fires as soon as the page's
  // thread is free), and GRACE_MS after the last one ran.
  Object.defineProperty(window, Symbol.for("twinpage.startupTimers"), {
    value: () => {
      let wait = lastRan + GRACE_MS - now();
      for (const at of due.values()) {
        wait = Math.max(wait, at - now(), 1);
      }
      return Math.max(0, Math.ceil(wait));
    },
  });
})();
