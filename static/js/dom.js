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
