// Keyboard labelling: digits score the highlighted criterion, a named point's letter picks it (y / n),
// a/b/t choose A, B or tie, Enter saves.
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
    var named = q && /^[a-z]$/i.test(key) ? q.querySelector("input[data-key='" + key.toLowerCase() + "']") : null;
    if (named) {  // a named point's letter (y / n) answers the question, before the letters' other uses
      choose(named.value);
      e.preventDefault();
    } else if (/^[0-9]$/.test(key) && kind === "score") {
      var low = Number(q.getAttribute("data-low")), high = Number(q.getAttribute("data-high"));
      var value = Number(key);
      if (value === 0 && high === 10 && low > 0) value = 10;
      if (choose(String(value))) e.preventDefault();
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
