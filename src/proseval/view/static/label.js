// Keyboard labelling: each point's key picks it on the highlighted question (its digit; 10 is 0 on a
// scale without 0, t on one from 0; a named point's letter: y / n), the arrow keys move along the
// scale (every point, a key of its own or not), a/b/t choose A, B or tie, Enter saves.
// Without JavaScript the form works with the mouse; the server checks every value anyway.
"use strict";
(function () {
  var form = document.getElementById("label-form");
  if (!form) return;
  var questions = Array.prototype.slice.call(form.querySelectorAll("[data-question]"));
  var comment = form.querySelector("textarea[name=comment]");
  var current = 0;

  function answered(q) {
    if (q.querySelector("input[type=radio]:checked")) return true;
    var number = q.querySelector("input[type=number]");
    return !!(number && number.value !== "");
  }
  function show(i) {
    if (!questions.length) return;
    current = Math.max(0, Math.min(questions.length - 1, i));
    questions.forEach(function (q, k) { q.classList.toggle("current", k === current); });
    var number = questions[current].querySelector("input[type=number]");
    if (number) number.focus();
  }
  function advance() {
    for (var k = current + 1; k < questions.length; k++) {
      if (!answered(questions[k])) { show(k); return; }
    }
    if (current + 1 < questions.length) show(current + 1);
    else show(current);
  }
  function choose(value) {
    var q = questions[current];
    if (!q) return false;
    var input = q.querySelector("input[type=radio][value='" + value + "']");
    if (!input) return false;
    input.checked = true;
    advance();
    return true;
  }
  function step(by) {  // the next point along the highlighted scale (from none: its first or last)
    var q = questions[current];
    var points = q ? Array.prototype.slice.call(q.querySelectorAll("input[type=radio]")) : [];
    if (!points.length) return false;
    var at = points.findIndex(function (p) { return p.checked; });
    var next = at < 0 ? (by > 0 ? 0 : points.length - 1) : Math.max(0, Math.min(points.length - 1, at + by));
    points[next].checked = true;
    return true;
  }
  function submit() {
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }
  function go(selector) {
    var link = document.querySelector(selector);
    if (link) location.href = link.href;
  }

  questions.forEach(function (q, i) {
    q.addEventListener("click", function () { show(i); });
    q.addEventListener("change", function () { current = i; advance(); });
  });
  var first = questions.findIndex(function (q) { return !answered(q); });
  show(first >= 0 ? first : 0);

  document.addEventListener("keydown", function (e) {
    var target = e.target;
    var typing = target && target.closest && target.closest("textarea, input[type=text], input[type=number]");
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submit(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing) {
      if (e.key === "Escape") target.blur();
      if (e.key === "Enter" && target.type === "number") { e.preventDefault(); advance(); }
      return;
    }
    var q = questions[current];
    var kind = q ? q.getAttribute("data-kind") : "";
    var key = e.key;
    var picked = q && /^[a-z0-9]$/i.test(key) ? q.querySelector("input[data-key='" + key.toLowerCase() + "']") : null;
    if (picked) {  // a point's own key answers the question, before the letters' other uses
      choose(picked.value);
      e.preventDefault();
    } else if ((key === "ArrowLeft" || key === "ArrowRight") && kind === "score") {
      if (step(key === "ArrowRight" ? 1 : -1)) e.preventDefault();
    } else if (kind === "choice" && (key === "a" || key === "b" || key === "t" || key === "A" || key === "B" || key === "T")) {
      choose({ a: "A", b: "B", t: "tie" }[key.toLowerCase()]);
      e.preventDefault();
    } else if (key === "Enter") {
      e.preventDefault();
      submit();
    } else if (key === "Backspace") {
      e.preventDefault();
      show(current - 1);
    } else if (key === "c" && comment) {
      e.preventDefault();
      comment.focus();
    } else if (key === "n") {
      go("[data-next]");
    } else if (key === "p") {
      go("[data-prev]");
    }
  });
})();
