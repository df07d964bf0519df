// The finish page of an MTurk HIT (collect/done.html): post the result back to MTurk at once; the
// button stays for a worker whose browser blocked the automatic submit.
//
// sessionStorage remembers the post, so that going back to this page does not post again. Inside
// MTurk's cross-site frame a browser may refuse a third party any storage (SecurityError): post
// anyway, as MTurk answers a second post of the same assignment with its own notice.
const form = document.getElementById("mturk-submit");

function postedBefore(key) {
  try {
    if (sessionStorage.getItem(key)) return true;
    sessionStorage.setItem(key, "1");
  } catch {
    // no storage for this frame
  }
  return false;
}

if (form && !postedBefore(`gw-mturk-${form.action}`)) form.submit();
