// The model-chat onboarding sample (modelchat/onboarding.html): on each partner message
// "None" and the problems exclude each other, as in the chat itself; the server refuses the two
// together too (collect/tasktypes/modelchat/onboarding.py answers_check).

for (const box of document.querySelectorAll(".onboarding-messages .problem-labels")) {
  box.addEventListener("change", (event) => {
    const changed = event.target;
    if (!(changed instanceof HTMLInputElement) || !changed.checked) return;
    for (const input of box.querySelectorAll("input[type=checkbox]")) {
      if ((input.value === "none") !== (changed.value === "none")) input.checked = false;
    }
  });
}
