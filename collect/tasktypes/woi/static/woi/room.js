// The Wizard of Internet room screen (woi/room.html, on chat_base.html): the apprentice's persona
// form, the chat with the wizard's search panel (search.js), the apprentice's rating. The socket,
// the transcript, the composer and the screens are chat.js's; this adds what is WoI's.

import { ChatRoom, pickedRating } from "../js/chat.js";
import { SearchPanel } from "./search.js";
import { h, randomId, setNotice } from "../js/dom.js";
import { errorText } from "../js/errors.js";
import { format, formatNumber, gettext, gettext_noop, ngettext } from "../js/i18n.js";

const $ = (id) => document.getElementById(id);
const role = $("room").dataset.role;
const MIN_DETAIL_CHARS = 20; // personas.py MIN_DETAIL_CHARS

// This task type's refusals (protocol.py, panel.py, personas.py); errors.js has the common ones.
const REFUSED = {
  selection_required: gettext_noop("Select the sentences your message uses in the search results, or tick “No sentence used”."),
  stale_search: gettext_noop("Your search results have just changed: select the sentences again."),
  bad_selection: gettext_noop("A selected sentence is not in the search results you were shown."),
  too_many_searches: gettext_noop("You have searched a lot this turn: reply with what you found."),
  persona_too_short: gettext_noop("Add a sentence of at least 20 characters to refine your persona."),
  bad_persona: gettext_noop("Fill in your persona as asked: choose one of the options and complete it."),
  persona_used: gettext_noop("Someone else has already played this persona: choose another."),
};

function refusalText(frame) {
  const english = REFUSED[frame.code];
  if (!english) return errorText(frame);
  const translated = gettext(english);
  return translated !== english ? translated : frame.message || english;
}

let searchClientId = null;
let personaClientId = null;

const panel =
  role === "wizard"
    ? new SearchPanel($("search-panel"), {
        onSearch(query) {
          if (!chat.isChatting || !chat.state.your_turn) {
            panel.refused(gettext("Search on your turn: wait for your partner's reply."));
            return false;
          }
          searchClientId = randomId();
          // Resent until acknowledged; while reconnecting it goes out once the socket is back.
          chat.sendAction({ type: "search", client_id: searchClientId, query });
          return true;
        },
        // A search still running after a while: a sync has the server run it again if it was lost.
        onOverdue: () => chat.socket.resync(),
      })
    : null;

// --- the apprentice's persona -------------------------------------------------------------------

const personaEls = {
  form: $("persona-form"),
  template: $("persona-template"),
  topic: $("persona-topic"),
  item: $("persona-item"),
  curated: $("persona-curated"),
  choices: $("persona-choices"),
  detail: $("persona-detail"),
  error: $("persona-error"),
  submit: $("persona-submit"),
  own: $("own-persona"),
};
let formShown = null;

function renderPersonaForm(form) {
  if (!personaEls.form || !form) return;
  const key = JSON.stringify(form);
  if (key === formShown) return;
  formShown = key;
  const template = form.mode === "template";
  personaEls.template.hidden = !template;
  personaEls.curated.hidden = template;
  if (template) {
    // The topics are the researcher's words (protocol_config): shown as they are.
    personaEls.topic.replaceChildren(...(form.topics || []).map((topic) => h("option", { value: topic, text: topic })));
  } else {
    personaEls.choices.replaceChildren(
      ...(form.choices || []).map((choice, i) =>
        h(
          "label",
          { class: "knowledge-sentence", "data-testid": "persona-choice" },
          h("input", { type: "radio", name: "persona-choice", value: choice.text, checked: i === 0 }),
          h("span", {}, choice.text, choice.location ? h("span", { class: "muted", text: ` ${format(gettext("(you live in %(place)s)"), { place: choice.location })}` }) : null),
        ),
      ),
    );
  }
  personaEls.submit.disabled = false;
}

function submitPersona(event) {
  event.preventDefault();
  const state = JSON.parse(formShown || "null");
  if (!state) return;
  const template = state.mode === "template";
  const picked = template ? personaEls.topic.value : (personaEls.choices.querySelector("input:checked") || {}).value;
  const item = personaEls.item.value.trim();
  const detail = personaEls.detail.value.trim();
  let problem = "";
  if (!picked) problem = gettext("Choose one of the options first.");
  else if (template && !item) problem = format(gettext("Say what your character's favorite %(topic)s is."), { topic: picked });
  else if (Array.from(detail).length < MIN_DETAIL_CHARS) problem = gettext(REFUSED.persona_too_short);
  setNotice(personaEls.error, problem);
  if (problem) return;
  personaClientId = randomId();
  const frame = { type: "write_persona", client_id: personaClientId, choice: picked, detail };
  if (template) frame.item = item;
  if (!chat.sendAction(frame)) setNotice(personaEls.error, gettext("Reconnecting — your persona will be sent."));
  personaEls.submit.disabled = true;
}

if (personaEls.form) {
  personaEls.form.addEventListener("submit", submitPersona);
  personaEls.form.addEventListener("input", () => setNotice(personaEls.error, ""));
}

function showOwnPersona(persona) {
  if (personaEls.own && persona) personaEls.own.textContent = format(gettext("Your persona: %(persona)s"), { persona: persona.replace(/\n+/g, " ") });
}

// --- the room -----------------------------------------------------------------------------------

const chat = new ChatRoom({
  roleNames: { wizard: gettext("Wizard"), apprentice: gettext("Apprentice") },
  liveStatuses: ["preparing", "chatting"],
  frames: {
    search_results: (frame) => panel && panel.update(frame),
    persona: (frame) => showOwnPersona(frame.persona),
  },
  onState(s) {
    if (s.status === "preparing") renderPersonaForm(s.persona_form);
    if (panel) panel.setEnabled(s.status === "chatting" && Boolean(s.your_turn));
  },
  onMessage(frame, li, { fresh }) {
    // Every message starts a new turn: the wizard's next one begins with an empty panel.
    if (panel && fresh) panel.newTurn(frame.seq);
  },
  prepareSend(frame) {
    if (!panel) return {};
    const selected = panel.selection();
    if (!selected) {
      panel.flagMissing();
      return { error: gettext("Before sending, select the sentences your message uses in the search results — or tick “No sentence used”.") };
    }
    frame.selected = selected;
    const count = selected.sentences.length;
    return {
      note: count
        ? format(ngettext("%(count)s sentence used", "%(count)s sentences used", count), { count: formatNumber(count) })
        : gettext("No sentence used"),
    };
  },
  afterSend() {
    if (panel) panel.clearSelection();
  },
  ratingFrame(form) {
    const rating = pickedRating(form, "rating");
    return rating === null ? gettext("Please pick a number from 1 to 5.") : { type: "rate", rating };
  },
  onError(frame, status) {
    if (frame.client_id && frame.client_id === personaClientId) {
      setNotice(personaEls.error, refusalText(frame));
      personaEls.submit.disabled = false;
      return true;
    }
    if (panel && frame.client_id && frame.client_id === searchClientId) {
      panel.refused(refusalText(frame));
      return true;
    }
    if (frame.code === "stale_search") chat.socket.resync(); // the newest panel may not have reached this page
    if (status === "chatting" && REFUSED[frame.code]) {
      setNotice(chat.els.composerError, refusalText(frame));
      if (panel && frame.code !== "too_many_searches") panel.flagMissing();
      return true;
    }
    return false;
  },
});

if (panel) panel.pane.addEventListener("selection", () => setNotice(chat.els.composerError, ""));

chat.start();
