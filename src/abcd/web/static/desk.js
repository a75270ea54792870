// abcd review: the one script. The pages work without it; it only makes the replay slider live.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const slider = document.getElementById("seq-slider");
  const shown = document.getElementById("seq-shown");
  const form = document.getElementById("replay");
  if (!slider || !shown || !form) return;
  slider.addEventListener("input", () => { shown.textContent = slider.value; });
  slider.addEventListener("change", () => {
    const at = form.elements.namedItem("at");
    if (at) at.value = "";  // the slider picks a seq; a time typed before would win
    form.requestSubmit();
  });
});
