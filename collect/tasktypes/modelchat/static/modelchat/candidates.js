// Several models' replies to the evaluator's message, side by side (protocol_config.prism;
// collect/tasktypes/modelchat/prism.py): each streams into its own card (`stream` frames with a
// `candidate`), then the state offers them (`candidates`: {after_seq, replies: [{index, text}],
// picked}); the evaluator may rate each 1–5 and picks one, which the partner's seat then posts as
// its message. The models' names are never shown.

import { h } from "../js/dom.js";
import { format, gettext } from "../js/i18n.js";

const RATINGS = [1, 2, 3, 4, 5];

export class Candidates {
  constructor(chat) {
    this.chat = chat;
    this.after = -1; // the message the shown replies answer
    this.offered = false; // the state offers them: they can be picked
    this.picked = null;
  }

  get panel() {
    let panel = document.getElementById("candidates");
    if (!panel) {
      panel = h("section", { id: "candidates", class: "candidates", "data-testid": "candidates", "aria-live": "polite" },
        h("h2", { class: "candidates-heading", text: gettext("Which reply should the chat go on with?") }),
        h("p", { class: "muted candidates-hint", text: gettext("Rate each reply if you like (1 = poor, 5 = excellent), then pick one.") }),
        h("ol", { class: "candidate-list" }));
      panel.hidden = true;
      this.chat.els.messages.after(panel);
    }
    return panel;
  }

  _card(index) {
    const list = this.panel.querySelector(".candidate-list");
    let card = list.querySelector(`[data-index="${index}"]`);
    if (card) return card;
    const rating = h("fieldset", { class: "candidate-rating" },
      h("legend", { text: gettext("Your rating (optional)") }),
      ...RATINGS.map((value) => h("label", { class: "candidate-rating-choice" },
        h("input", { type: "radio", name: `candidate-rating-${index}`, value: String(value), "data-testid": `rate-${index}-${value}` }),
        ` ${value}`)));
    const pick = h("button", { type: "button", class: "button button-primary", "data-testid": `pick-${index}`, disabled: true,
      text: gettext("Pick this reply"), on: { click: () => this._pick(index) } });
    card = h("li", { class: "candidate", "data-testid": "candidate", dataset: { index: String(index) } },
      h("span", { class: "candidate-label", text: format(gettext("Reply %(number)s"), { number: index + 1 }) }),
      h("p", { class: "candidate-text" }),
      rating,
      pick);
    // In the order drawn for this turn.
    const after = Array.from(list.children).find((other) => Number(other.dataset.index) > index);
    list.insertBefore(card, after || null);
    return card;
  }

  _reset(afterSeq) {
    if (afterSeq === this.after) return;
    this.after = afterSeq;
    this.offered = false;
    this.picked = null;
    this.panel.querySelector(".candidate-list").replaceChildren();
  }

  /** A `stream` frame of one reply: its text so far. */
  stream(frame) {
    if (frame.after_seq < Math.max(0, ...this.chat.bySeq.keys()) || frame.after_seq < this.after) return;
    this._reset(frame.after_seq);
    if (this.offered) return; // the stored replies are shown
    const card = this._card(frame.candidate);
    card.classList.add("candidate-streaming");
    card.querySelector(".candidate-text").textContent = frame.text;
    this.panel.hidden = false;
  }

  onState(s) {
    const offer = s.status === "chatting" ? s.candidates : null;
    if (!offer) {
      // Replies still streaming in are kept until the chat moves past their message.
      if (s.status !== "chatting" || s.your_turn || (s.last_seq || 0) > this.after) this.hide();
      return;
    }
    this._reset(offer.after_seq);
    this.offered = true;
    const shown = new Set(offer.replies.map((reply) => reply.index));
    for (const card of Array.from(this.panel.querySelectorAll(".candidate"))) if (!shown.has(Number(card.dataset.index))) card.remove();
    for (const reply of offer.replies) {
      const card = this._card(reply.index);
      card.classList.remove("candidate-streaming");
      card.querySelector(".candidate-text").textContent = reply.text;
    }
    if (offer.picked !== null && offer.picked !== undefined) this.picked = offer.picked;
    this._buttons();
    this.panel.hidden = false;
  }

  _buttons() {
    for (const card of this.panel.querySelectorAll(".candidate")) {
      const index = Number(card.dataset.index);
      card.classList.toggle("candidate-picked", index === this.picked);
      card.querySelector("button").disabled = !this.offered || this.picked !== null;
      for (const input of card.querySelectorAll("input")) input.disabled = this.picked !== null;
    }
  }

  _pick(index) {
    const ratings = {};
    for (const card of this.panel.querySelectorAll(".candidate")) {
      const checked = card.querySelector("input:checked");
      if (checked) ratings[card.dataset.index] = Number.parseInt(checked.value, 10);
    }
    // Resent until acknowledged (and applied once), like every state-changing frame.
    this.chat.sendAction({ type: "pick", after_seq: this.after, candidate: index, ratings });
    this.picked = index;
    this._buttons();
  }

  hide() {
    if (!document.getElementById("candidates")) return;
    this.panel.hidden = true;
    this.panel.querySelector(".candidate-list").replaceChildren();
    this.offered = false;
  }

  /** Whether replies are on screen (the typing notice then stays away). */
  get showing() {
    return Boolean(document.getElementById("candidates") && !this.panel.hidden);
  }
}
