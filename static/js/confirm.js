// A second, in-page step before an action that cannot be undone ("Leave the study", "End chat"):
// the first click asks, "yes" acts, "no" puts the button back. Not window.confirm(): a crowd
// platform's frame may block dialogs, and the question should sit where the worker looks.
import { h } from "./dom.js";

export class Confirmation {
  /** `place(node)` puts the question in the page (default: right after the button). */
  constructor(button, { question, yes, no, onConfirm, place }) {
    this.button = button;
    this.onConfirm = onConfirm;
    this.yes = h("button", { type: "button", class: "button button-secondary", "data-testid": "confirm-yes", text: yes });
    this.no = h("button", { type: "button", class: "button", "data-testid": "confirm-no", text: no });
    this.node = h(
      "div",
      { class: "confirm-step", role: "group", "data-testid": "confirm", hidden: true },
      h("p", { class: "confirm-question", text: question }),
      h("div", { class: "confirm-buttons" }, this.yes, this.no),
    );
    (place || ((node) => button.after(node)))(this.node);
    this.yes.addEventListener("click", () => {
      this.close();
      this.onConfirm();
    });
    this.no.addEventListener("click", () => {
      this.close();
      this.button.focus();
    });
  }

  get isOpen() {
    return !this.node.hidden;
  }

  ask() {
    this.node.hidden = false;
    this.button.hidden = true;
    this.no.focus();
  }

  /** `restore: false` leaves the button as it is (its page hides it for reasons of its own). */
  close({ restore = true } = {}) {
    this.node.hidden = true;
    if (restore) this.button.hidden = false;
  }
}
