// The Wizard of Wikipedia room screen (wow/room.html, on chat_base.html): the wizard's topic
// choice, the chat with the wizard's knowledge panel, the apprentice's rating. The socket, the
// transcript, the composer and the screens are chat.js's; this adds what is Wizard of Wikipedia's.

import { ChatRoom, pickedRating } from "../js/chat.js";
import { KnowledgePanel } from "./knowledge.js";
import { h, setNotice } from "../js/dom.js";
import { errorText } from "../js/errors.js";
import { format, gettext } from "../js/i18n.js";

const $ = (id) => document.getElementById(id);
const role = $("room").dataset.role;
const knowledge =
  role === "wizard"
    ? new KnowledgePanel($("knowledge-panel"), `groundwork:tick:${$("room").dataset.roomId}:${role}`, {
        // The panel for the partner's last turn is late: its retrieval (or its delivery) may have
        // been lost with a server process or connection; a sync has the server redo or resend it.
        onOverdue: () => chat.socket.resync(),
      })
    : null;

const topicEls = {
  chooser: $("topic-chooser"),
  waiting: $("topic-waiting"),
  persona: $("persona-text"),
  options: $("topic-options"),
  error: $("topic-error"),
};

function renderTopicChoice(s) {
  const chooser = Boolean(s.persona);
  topicEls.chooser.hidden = !chooser;
  topicEls.waiting.hidden = chooser;
  if (!chooser) return;
  topicEls.persona.textContent = s.persona.text || "";
  const topics = Array.isArray(s.persona.topics) ? s.persona.topics : [];
  const current = Array.from(topicEls.options.children, (b) => b.dataset.topic);
  if (current.join("\n") !== topics.join("\n")) {
    topicEls.options.replaceChildren(
      ...topics.map((topic) =>
        h("button", {
          type: "button",
          class: "button topic-option",
          "data-testid": "topic-option",
          dataset: { topic },
          text: topic,
          on: { click: () => chooseTopic(topic) },
        }),
      ),
    );
  }
  for (const button of topicEls.options.children) button.disabled = false;
}

function chooseTopic(topic) {
  setNotice(topicEls.error, "");
  // Resent until acknowledged; while reconnecting it goes out once the socket is back.
  if (!chat.sendAction({ type: "choose_topic", topic })) setNotice(topicEls.error, gettext("Reconnecting — your choice will be sent."));
  for (const button of topicEls.options.children) button.disabled = true;
}

function checkedNote(frame) {
  if (!("checked_sentence" in frame) || frame.role !== "wizard") return null;
  const sentence = frame.checked_sentence;
  // The server names "no sentence used" as null or as the WoW dataset's "no_passages_used" marker.
  if (!sentence || sentence === "no_passages_used") return gettext("No sentence used");
  return format(gettext("Knowledge used: “%(sentence)s”"), { sentence });
}

const chat = new ChatRoom({
  roleNames: { wizard: gettext("Wizard"), apprentice: gettext("Apprentice") },
  liveStatuses: ["choosing_topic", "chatting"],
  frames: {
    knowledge: (frame) => knowledge && knowledge.update(frame),
    // Only the panel it reorders: a late one for an older turn is dropped.
    "knowledge.reranked": (frame) => {
      if (knowledge && frame.after_seq === knowledge.afterSeq) knowledge.update(frame, { ranked: true });
    },
  },
  onState(s) {
    if (s.status === "choosing_topic") renderTopicChoice(s);
  },
  messageNote: checkedNote,
  onMessage(frame, li, { own, fresh }) {
    if (knowledge && fresh && !own) knowledge.markStale(frame.seq);
  },
  prepareSend(frame) {
    if (!knowledge) return {};
    const checked = knowledge.selection();
    if (!checked) {
      knowledge.flagMissing();
      return {
        error: gettext(
          "Before sending, tick the Wikipedia sentence your message uses in the knowledge panel — or tick “No sentence used”.",
        ),
      };
    }
    frame.checked = checked;
    const sentence = knowledge.selectedText();
    return { note: sentence ? format(gettext("Knowledge used: “%(sentence)s”"), { sentence }) : gettext("No sentence used") };
  },
  afterSend() {
    if (knowledge) knowledge.forget();
  },
  ratingFrame(form) {
    const rating = pickedRating(form, "rating");
    return rating === null ? gettext("Please pick a number from 1 to 5.") : { type: "rate", rating };
  },
  onError(frame, status) {
    if (status !== "choosing_topic") return false;
    setNotice(topicEls.error, errorText(frame));
    for (const button of topicEls.options.children) button.disabled = false;
    return true;
  },
});

if (knowledge) {
  // Ticking a sentence answers the "tick a sentence first" message.
  knowledge.panel.addEventListener("change", () => setNotice(chat.els.composerError, ""));
}

chat.start();
