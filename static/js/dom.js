// Tiny DOM helpers. Text always goes in through textContent: nothing from the server is parsed as HTML.

/**
 * Create an element. `attrs` keys: "class", "text", "dataset" (object), "on" (event → handler),
 * anything else becomes an attribute (true → empty attribute, false/null/undefined → omitted).
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Show `node` with `text`, or hide it when text is empty. */
export function setNotice(node, text) {
  node.textContent = text || "";
  node.hidden = !text;
}

/** A random id for idempotent resends. crypto.randomUUID needs a secure context; this does not. */
export function randomId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** ws:// or wss:// URL for a server path, matching how this page was loaded. */
export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

/** "m:ss" for a number of seconds. */
export function formatElapsed(totalSeconds) {
  const s = Math.max(0, Math.floor(totalSeconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// Characters as the server counts them (Python's len(): code points), so "😀" or "𠀀" is one
// character, not the two UTF-16 units of String.length; a combining accent is one of its own.
export function charCount(text) {
  return Array.from(text).length;
}

/** A text field whose limit is `maxChars` characters as the server counts them: its maxlength counts
 *  UTF-16 units, so it only caps pasting far past the limit; the caller checks charCount. */
export function limitChars(field, maxChars) {
  field.maxLength = 2 * maxChars;
  return maxChars;
}

/**
 * Keep a chat log's newest message, tags included, in sight while the page changes around it. A
 * banner or an error that takes room from the log, or a tag added under a message, otherwise
 * leaves the newest message under the log's bottom edge, or on a phone, where the page itself
 * scrolls, pushes it below the window's. Only while the reader is at the log's bottom: one who
 * scrolled back to read stays where they are. `page` is the element whose growth moves the log
 * (the room: its banners are above the log).
 */
export function keepNewestInView(log, page) {
  let atBottom = true;
  let newest = null;
  let newestSeen = false; // the newest message was (partly) on screen before this change
  const sight = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.target === newest) newestSeen = entry.isIntersecting;
  });
  // Resize observers run after layout and before paint: the reader never sees the jump.
  const sizes = new ResizeObserver(() => {
    if (!atBottom) return;
    log.scrollTop = log.scrollHeight;
    if (newest && newestSeen) newest.scrollIntoView({ block: "nearest" });
  });
  sizes.observe(log);
  sizes.observe(page);
  log.addEventListener("scroll", () => {
    atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 4;
  }, { passive: true });
  // Every message (a tag makes it taller) and which one is the newest.
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) if (node instanceof Element) sizes.observe(node);
    if (log.lastElementChild !== newest) {
      if (newest) sight.unobserve(newest);
      newest = log.lastElementChild;
      newestSeen = false;
      if (newest) sight.observe(newest);
    }
  }).observe(log, { childList: true });
}
