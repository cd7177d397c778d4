// Step through a trajectory one step at a time (without JavaScript every step is shown).
"use strict";
document.querySelectorAll("[data-stepper]").forEach(function (box) {
  var steps = Array.prototype.slice.call(box.querySelectorAll("[data-step]"));
  if (!steps.length) return;
  var nav = box.querySelector(".stepnav");
  var position = box.querySelector("[data-position]");
  var prev = box.querySelector("[data-prev]");
  var next = box.querySelector("[data-next]");
  var current = 0;
  var fromHash = steps.findIndex(function (s) { return "#" + s.id === location.hash; });
  if (fromHash >= 0) current = fromHash;
  function show(i) {
    current = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach(function (s, k) { s.classList.toggle("current", k === current); });
    position.textContent = "step " + (current + 1) + " of " + steps.length;
    prev.disabled = current === 0;
    next.disabled = current === steps.length - 1;
    history.replaceState(null, "", "#" + steps[current].id);
  }
  box.classList.add("js");
  nav.hidden = false;
  prev.addEventListener("click", function () { show(current - 1); });
  next.addEventListener("click", function () { show(current + 1); });
  document.addEventListener("keydown", function (e) {
    if (e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight" || e.key === "j") show(current + 1);
    if (e.key === "ArrowLeft" || e.key === "k") show(current - 1);
  });
  show(current);
});
