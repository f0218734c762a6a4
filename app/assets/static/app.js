// The overview updates itself: the server says when something changed, and the
// page fetches the overview again. Without this script the page refreshes itself.
(function () {
  "use strict";
  var main = document.getElementById("overview");
  if (!main || !window.EventSource) { return; }
  var busy = false;
  function reload() {
    if (busy) { return; }
    busy = true;
    fetch("/overview", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) { main.innerHTML = html; } })
      .finally(function () { busy = false; });
  }
  var es = new EventSource("/events");
  es.addEventListener("update", reload);
})();
