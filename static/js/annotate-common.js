// Shared by the annotation screens: the API calls, the screens every one starts from, the progress line,
// the "nothing to do" screen and the keyboard guard. Answers go through the same API external tools use.

import { setNotice } from "./dom.js";
import { errorText } from "./errors.js";
import { format, formatNumber, gettext } from "./i18n.js";

const DONE_TEXT = {
  done: [gettext("All done — thank you!"), gettext("You have labeled every item available to you.")],
  empty: [gettext("No items yet"), gettext("This job has no items to label yet. Try again later.")],
  busy: [gettext("Nothing free right now"), gettext("The remaining items are being labeled by others. Try again in a few minutes.")],
  disqualified: [gettext("Thank you"), gettext("Your answers to the qualification items did not reach the level this job needs.")],
  inactive: [gettext("Job closed"), gettext("This annotation job is not taking answers any more.")],
};

export class AnnotationClient {
  /** @param {HTMLElement} root  the element carrying data-next-url, data-answer-url, data-csrf */
  constructor(root) {
    this.nextUrl = root.dataset.nextUrl;
    this.answerUrl = root.dataset.answerUrl; // ends in /0/answers/: 0 is replaced by the item id
    this.csrf = root.dataset.csrf;
  }

  async next() {
    return this._post(this.nextUrl, {});
  }

  async answer(itemId, body) {
    return this._post(this.answerUrl.replace("/0/", `/${itemId}/`), body);
  }

  async _post(url, body) {
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": this.csrf },
        body: JSON.stringify(body),
      });
    } catch (error) {
      return { ok: false, data: { detail: gettext("The server cannot be reached. Check your connection and try again.") } };
    }
    let data = {};
    try {
      data = await response.json();
    } catch (error) {
      data = { detail: format(gettext("The server answered %(status)s."), { status: response.status }) };
    }
    // A refusal's detail is the server's English; the page shows its own language's text for the code.
    if (!response.ok && data.code) data = { ...data, detail: errorText({ code: data.code, message: data.detail }) };
    return { ok: response.ok, status: response.status, data };
  }
}

/** Fill the header's progress line from a next-item response's `progress`. */
/** What every annotation screen starts from: its API client and its three screens. */
export function annotationScreen() {
  const root = document.getElementById("annotate");
  return {
    root,
    client: new AnnotationClient(root),
    screens: {
      loading: document.getElementById("screen-loading"),
      item: document.getElementById("screen-item"),
      done: document.getElementById("screen-done"),
    },
  };
}

export function showProgress(node, progress) {
  if (!progress) return;
  const job = progress.job || {};
  let text = format(gettext("You: %(answered)s done"), { answered: formatNumber(progress.answered) });
  if (progress.qualification === "pending") {
    text = format(gettext("Qualification: %(answered)s of %(total)s"), {
      answered: formatNumber(progress.qualification_answered),
      total: formatNumber(progress.qualification_total),
    });
  }
  if (job.items) {
    text += format(gettext(" · job: %(complete)s of %(items)s items complete"), {
      complete: formatNumber(job.complete),
      items: formatNumber(job.items),
    });
  }
  node.textContent = text;
  node.dataset.answered = String(progress.answered);
}

/** Show the end screen for a next-item status other than assigned/resumed. What an item's
 *  errors said belongs to that item: none of it stays above the end screen. With an outcome
 *  (finishUrl), the finish page takes over: the code, and the platform's completion. */
export function showDone(screens, status, finishUrl) {
  if (finishUrl) {
    window.location.assign(finishUrl);
    return;
  }
  const [title, message] = DONE_TEXT[status] || DONE_TEXT.done;
  for (const node of document.querySelectorAll("#annotate [role=alert]")) setNotice(node, "");
  screens.item.hidden = true;
  screens.loading.hidden = true;
  screens.done.hidden = false;
  screens.done.dataset.status = status;
  screens.done.querySelector("[data-testid=done-title]").textContent = title;
  screens.done.querySelector("[data-testid=done-message]").textContent = message;
  const retry = screens.done.querySelector("[data-testid=retry]");
  if (retry) retry.hidden = status !== "busy" && status !== "empty";
}

/** Show an error and bring it into view (it may sit far from the button that caused it). */
export function showError(node, text) {
  setNotice(node, text);
  if (text) node.scrollIntoView({ block: "nearest" });
}

/** True when a key press belongs to a text field and must not trigger a shortcut. */
export function typing(event) {
  const target = event.target;
  if (event.ctrlKey || event.metaKey || event.altKey) return true;
  return target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type === "text");
}
