// The waiting screen (collect/waiting.html): wait on /ws/wait/<assignment>/ until the server pairs
// us (then open the room) or gives up (then say so and open the finish page).

import { Confirmation } from "./confirm.js";
import { GroundworkSocket } from "./socket.js";
import { formatElapsed, setNotice } from "./dom.js";
import { errorText } from "./errors.js";
import { gettext } from "./i18n.js";

const TEXT = {
  leaveQuestion: gettext("Leave the study? This returns the task: you get no completion code and no pay."),
  leaveYes: gettext("Yes, leave"),
  leaveNo: gettext("No, keep waiting"),
};

const $ = (id) => document.getElementById(id);
const root = $("waiting");
const statusLine = $("waiting-status");
const elapsed = $("elapsed");
let started = Date.now();
let finished = false;
// A `paired` frame can be lost between server processes: while waiting, the page also asks.
const STATUS_MS = 5000;

const tick = setInterval(() => {
  elapsed.textContent = formatElapsed((Date.now() - started) / 1000);
}, 1000);

const asking = setInterval(() => {
  if (!finished) socket.send({ type: "status" });
}, STATUS_MS);

// "Leave the study" asks once more before it returns the task.
const leaveForm = $("waiting-leave");
const leave = new Confirmation($("leave-button"), {
  question: TEXT.leaveQuestion,
  yes: TEXT.leaveYes,
  no: TEXT.leaveNo,
  place: (node) => leaveForm.append(node),
  onConfirm: () => leaveForm.submit(),
});
leaveForm.addEventListener("submit", (event) => {
  event.preventDefault();
  leave.ask();
});

function finish() {
  finished = true;
  clearInterval(tick);
  clearInterval(asking);
  socket.stop();
}

function setStatus(text, state) {
  statusLine.textContent = text;
  statusLine.dataset.state = state;
}

const socket = new GroundworkSocket(root.dataset.wsPath, {
  onStatus(status, detail) {
    if (finished) return;
    if (status === "connecting") setStatus(gettext("Connecting…"), "connecting");
    else if (status === "open") setStatus(gettext("Looking for a partner…"), "connected");
    else if (status === "reconnecting") setStatus(gettext("Connection lost — reconnecting…"), "reconnecting");
    else if (status === "closed") {
      clearInterval(tick);
      $("waiting-state").hidden = true;
      if ($("waiting-error").hidden) {
        const refused = detail && detail.code === 4403;
        setNotice(
          $("waiting-error"),
          refused ? gettext("This waiting room is not yours.") : gettext("The connection was closed. Reload the page to try again."),
        );
      }
    }
  },
  onFrame(frame) {
    if (finished) return;
    if (frame.type === "waiting") {
      setStatus(gettext("Looking for a partner…"), "waiting");
      // Count from when the worker joined, not from this page load (a reload keeps the clock).
      if (Number.isFinite(frame.timeout_seconds) && Number.isFinite(frame.remaining_seconds)) {
        started = Date.now() - Math.max(0, frame.timeout_seconds - frame.remaining_seconds) * 1000;
      }
    } else if (frame.type === "paired" && typeof frame.room_url === "string") {
      setStatus(gettext("Partner found! Opening the chat…"), "paired");
      finish();
      location.assign(frame.room_url);
    } else if (frame.type === "timeout") {
      finish();
      $("waiting-state").hidden = true;
      leaveForm.hidden = true; // the wait is over: nothing is left to leave (the finish page has the code)
      $("waiting-timeout-message").textContent = gettext("Sorry, no partner could be found in time.");
      $("waiting-timeout").hidden = false;
      // The finish page has this outcome's completion code (workers who waited are paid) and, on
      // Prolific and MTurk, hands it to the platform: go there at once. The link stays in case the
      // navigation is held up.
      if (typeof frame.done_url === "string") {
        $("waiting-done").href = frame.done_url;
        $("waiting-done").hidden = false;
        location.assign(frame.done_url);
      }
    } else if (frame.type === "error") {
      setNotice($("waiting-error"), errorText(frame));
    }
  },
}).start();
