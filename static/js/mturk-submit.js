// The finish page of an MTurk HIT (collect/done.html): post the result back to MTurk at once; the
// button stays for a worker whose browser blocked the automatic submit.
const form = document.getElementById("mturk-submit");
if (form && !sessionStorage.getItem(`gw-mturk-${form.action}`)) {
  sessionStorage.setItem(`gw-mturk-${form.action}`, "1");
  form.submit();
}
