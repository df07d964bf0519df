// Waits that double: whatever the page asks of a server that has not answered yet (a resend, a
// reconnect, a late panel) it asks less often each time, since a late server is most often a busy one.

/** The wait before try `tries + 1` after `tries` unanswered ones: baseMs, then twice the wait before,
 *  never more than capMs. */
export function doubledWait(baseMs, tries, capMs) {
  return Math.min(baseMs * 2 ** Math.max(0, tries), capMs);
}
