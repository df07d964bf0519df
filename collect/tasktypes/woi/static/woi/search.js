// The wizard's search panel (woi/room.html): the partner's persona, the search bar, and the
// documents of the turn's latest search that found some, each sentence a checkbox; "No sentence
// used" unticks them all and any sentence unticks it. It renders the server's `search_results`
// frames (collect/tasktypes/woi/panel.py): `shown` are the documents on screen, `latest` the
// newest search of the turn, whatever became of it.

import { h, setNotice } from "../js/dom.js";
import { format, gettext, gettext_noop } from "../js/i18n.js";

// What a failed search says, by its code (search/__init__.py); the server's English detail otherwise.
const FAILED = {
  search_down: gettext_noop("The search service cannot be reached right now."),
  search_slow: gettext_noop("The search took too long and was stopped."),
  search_garbage: gettext_noop("The search service sent something that is not a list of documents."),
  search_error: gettext_noop("The search service reported an error."),
  search_unusable: gettext_noop("Searching is not set up correctly for this study: tell the researcher."),
  abandoned: gettext_noop("This search was still running when you replied."),
};
const SEARCH_AGAIN = gettext("You can search again, or reply with what is on screen.");
// A search this late is asked for again (the page sends a `sync`: the server runs again a search
// a dead process left running), once.
const OVERDUE_MS = 8000;

export function failureText(error) {
  const english = error && FAILED[error.code];
  const translated = english ? gettext(english) : "";
  if (translated && translated !== english) return translated;
  return english || (error && error.message) || gettext("The search failed.");
}

export class SearchPanel {
  /** @param {HTMLElement} pane  #search-panel
   *  @param {{onSearch: (query: string) => boolean, onOverdue: () => void}} hooks */
  constructor(pane, { onSearch, onOverdue }) {
    this.pane = pane;
    this.form = pane.querySelector("#search-form");
    this.input = pane.querySelector("#search-input");
    this.button = pane.querySelector("#search-button");
    this.status = pane.querySelector("#search-status");
    this.error = pane.querySelector("#search-error");
    this.noSentence = pane.querySelector("#no-sentence");
    this.documentsEl = pane.querySelector("#search-documents");
    this.persona = pane.querySelector("#partner-persona");
    this.onSearch = onSearch;
    this.onOverdue = onOverdue;
    this.afterSeq = 0; // the turn this panel belongs to: after message afterSeq
    this.shownId = null; // the search whose documents are on screen
    this.documents = [];
    this.boxes = []; // {document, sentence, input}
    this.overdueTimer = null;
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this._search();
    });
    this.noSentence.addEventListener("change", () => {
      if (this.noSentence.checked) for (const box of this.boxes) box.input.checked = false;
      this._changed();
    });
    this.documentsEl.addEventListener("change", (event) => {
      if (event.target.type === "checkbox" && event.target.checked) this.noSentence.checked = false;
      this._changed();
    });
  }

  _changed() {
    this.pane.classList.remove("knowledge-missing");
    this.pane.dispatchEvent(new Event("selection"));
  }

  /** Searching is possible on the wizard's own turn only. */
  setEnabled(enabled) {
    this.button.disabled = !enabled;
  }

  _search() {
    const query = this.input.value.trim();
    setNotice(this.error, "");
    if (!query) {
      setNotice(this.error, gettext("Type what you want to look up first."));
      return;
    }
    if (this.onSearch(query)) this.input.select();
  }

  /** Show an error about the search bar (a refused query). */
  refused(text) {
    setNotice(this.status, "");
    setNotice(this.error, text);
  }

  /** Render a `search_results` frame; one for an earlier turn than the panel's is dropped. */
  update(frame) {
    if (!Number.isInteger(frame.after_seq) || frame.after_seq < this.afterSeq) return;
    if (frame.after_seq > this.afterSeq) this.newTurn(frame.after_seq);
    if (typeof frame.persona === "string") this.persona.textContent = frame.persona;
    const shown = frame.shown || null;
    if ((shown ? shown.search : null) !== this.shownId) this._showDocuments(shown);
    const latest = frame.latest || null;
    clearTimeout(this.overdueTimer);
    this.pane.dataset.searchStatus = latest ? latest.status : "";
    if (latest && latest.status === "pending") {
      setNotice(this.status, format(gettext("Searching for “%(query)s”…"), { query: latest.query }));
      setNotice(this.error, "");
      this.overdueTimer = setTimeout(() => this.onOverdue(), OVERDUE_MS);
    } else if (latest && latest.status === "failed") {
      setNotice(this.status, "");
      setNotice(this.error, `${failureText(latest.error)} ${SEARCH_AGAIN}`);
    } else {
      setNotice(this.status, "");
      setNotice(this.error, "");
    }
  }

  /** A message after `seq` starts a new turn: its panel starts empty (the persona stays). */
  newTurn(seq) {
    if (seq <= this.afterSeq) return;
    this.afterSeq = seq;
    this.pane.dataset.afterSeq = String(seq);
    clearTimeout(this.overdueTimer);
    setNotice(this.status, "");
    setNotice(this.error, "");
    this.pane.dataset.searchStatus = "";
    this._showDocuments(null);
    this.noSentence.checked = false;
  }

  _showDocuments(shown) {
    const before = new Set(this.boxes.filter((b) => b.input.checked).map((b) => `${b.document}:${b.sentence}`));
    const same = shown && shown.search === this.shownId;
    this.shownId = shown ? shown.search : null;
    this.pane.dataset.shownSearch = this.shownId === null ? "" : String(this.shownId);
    this.documents = shown && Array.isArray(shown.documents) ? shown.documents : [];
    this.boxes = [];
    this.documentsEl.replaceChildren();
    if (!shown) {
      this.documentsEl.append(h("p", { class: "muted", text: gettext("Search to see documents here.") }));
      return;
    }
    if (this.documents.length === 0) {
      this.documentsEl.append(h("p", { class: "muted", "data-testid": "no-documents", text: format(gettext("Nothing found for “%(query)s”."), { query: shown.query }) }));
    } else {
      this.documentsEl.append(h("p", { class: "muted woi-results-for", text: format(gettext("Results for “%(query)s”"), { query: shown.query }) }));
    }
    this.documents.forEach((document, d) => this.documentsEl.append(this._renderDocument(document, d, d === 0)));
    if (same) for (const box of this.boxes) box.input.checked = before.has(`${box.document}:${box.sentence}`);
    else this.noSentence.checked = false;
  }

  _renderDocument(document, d, open) {
    const sentences = Array.isArray(document.content) ? document.content : [];
    const list = h("ul", { class: "sentences" });
    sentences.forEach((text, s) => {
      const input = h("input", { type: "checkbox", value: `${d}:${s}` });
      this.boxes.push({ document: d, sentence: s, text: String(text), input });
      list.append(h("li", {}, h("label", {
        class: "knowledge-sentence", "data-testid": "search-sentence", dataset: { document: d, sentence: s },
      }, input, h("span", { class: "sentence-text", text: String(text) }))));
    });
    return h(
      "details",
      { class: "article", "data-testid": "search-document", dataset: { document: d }, open },
      h("summary", {}, h("span", { class: "article-title", text: String(document.title || document.url || "") }),
        h("span", { class: "woi-url", text: String(document.url || "") })),
      list,
    );
  }

  /** The reply's `selected` field, or null when nothing is ticked (not even "No sentence used"). */
  selection() {
    const sentences = this.boxes.filter((b) => b.input.checked).map((b) => [b.document, b.sentence]);
    if (!sentences.length && !this.noSentence.checked) return null;
    return { search: this.shownId, sentences };
  }

  /** The ticked sentences' text. */
  selectedTexts() {
    return this.boxes.filter((b) => b.input.checked).map((b) => b.text);
  }

  /** Draw attention to the panel when the wizard tried to send without ticking anything. */
  flagMissing() {
    this.pane.classList.add("knowledge-missing");
    this.noSentence.focus({ preventScroll: true });
    this.pane.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  clearSelection() {
    this.noSentence.checked = false;
    for (const box of this.boxes) box.input.checked = false;
  }
}
