// What the page says for an error frame ({type: "error", code, message}, docs/websocket-protocol.md)
// and for an annotation API error ({code, detail}, annotate/api/views.py; AnnotationClient passes its
// detail as the message). The server's message is English and may name specifics; in another
// language the page shows its catalog's text for the code, and the server's message only where the
// catalog has none.

import { gettext, gettext_noop } from "./i18n.js";

const BY_CODE = {
  bad_frame: gettext_noop("The page sent something the server could not accept. Reload the page and try again."),
  bad_json: gettext_noop("The page sent something the server could not read. Reload the page and try again."),
  too_large: gettext_noop("That was too large to send."),
  wrong_state: gettext_noop("That is not possible at this stage of the chat."),
  not_your_turn: gettext_noop("Please wait for your partner's reply before sending."),
  not_allowed: gettext_noop("Your role cannot do that in this chat."),
  not_member: gettext_noop("This page belongs to another worker. Use your own link."),
  rate_limited: gettext_noop("Too many actions in a short time: slow down a little and try again."),
  server_error: gettext_noop("The server could not handle this; nothing was changed. Try again."),
  onboarding_required: gettext_noop("Finish the instructions and quiz first."),
  too_early_to_end: gettext_noop("It is too early to end the chat: keep talking a little longer."),
  checked_required: gettext_noop("Check the knowledge sentence you used, or “No sentence used”."),
  bad_checked: gettext_noop("The checked sentence is not in the knowledge you were shown."),
  stale_knowledge: gettext_noop("Your knowledge panel has just been updated: check the sentence again."),
  knowledge_copied: gettext_noop(
    "Your message repeats a whole sentence of the knowledge. Please say it in your own words (you may keep names and facts).",
  ),
  bad_topic: gettext_noop("Choose one of the topics offered to you."),
  bad_rating: gettext_noop("Please answer every question with one of the numbers offered."),
  bad_triple: gettext_noop("Mark only facts from your knowledge panel."),
  bad_entities: gettext_noop("Mark only entities from the list you were shown."),
  already_switched: gettext_noop("You have already switched to your second aspect."),
  bad_aspect: gettext_noop("You can switch only to your other aspect."),
  bad_like: gettext_noop("Only the assistant's messages can be liked."),
  bad_fact: gettext_noop("You can only use facts from the fact bank shown for this turn."),
  label_required: gettext_noop("Mark your partner's last message first: tick its problems, or “None”."),
  bad_label: gettext_noop("Those problem labels cannot be used here."),
  bad_pick: gettext_noop("Pick one of the replies shown; a rating is a number from 1 to 5."),
  // The annotation API's codes.
  invalid: gettext_noop("The page sent something the server could not accept. Reload the page and try again."),
  blocked: gettext_noop("You cannot take part in this job. Contact the researcher if you think this is a mistake."),
  not_entered: gettext_noop("Open this job through the link you were given first."),
  no_job: gettext_noop("There is no such annotation job. Check the link you were given."),
  no_item: gettext_noop("This item no longer exists. Reload the page for the next one."),
  not_assigned: gettext_noop("This item is no longer reserved for you. Reload the page for the next one."),
  already_answered: gettext_noop("You have already answered this item. Reload the page for the next one."),
  reservation_expired: gettext_noop("Your time for this item ran out and it went to others. Reload the page for the next one."),
  bad_answer: gettext_noop("The answer was not accepted. Reload the page and try again."),
  unknown_sentence: gettext_noop("The answer was not accepted. Reload the page and try again."),
  duplicate_sentence: gettext_noop("The answer was not accepted. Reload the page and try again."),
  unknown_act: gettext_noop("The answer was not accepted. Reload the page and try again."),
  bad_score: gettext_noop("Choose a score on both scales."),
  bad_time: gettext_noop("The answer was not accepted. Reload the page and try again."),
  bad_report: gettext_noop("The reason for your report is too long: shorten it and try again."),
  bad_reason: gettext_noop("Give a short reason for your choice: a few words or a sentence."),
};

/** The text to show for an error frame, in the page's language where the catalog has it. */
export function errorText(frame) {
  const english = BY_CODE[frame.code];
  const translated = english ? gettext(english) : "";
  if (translated && translated !== english) return translated;
  return frame.message || gettext("Something went wrong.");
}
