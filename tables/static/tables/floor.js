// The floor's figures without a reload: every data-poll-ms the page asks the server for
// its parts again and swaps in each one that changed - but never the alerts while a note
// is being typed into one of their forms.
(function () {
  "use strict";
  var root = document.getElementById("floor");
  if (!root) { return; }
  var url = root.dataset.figuresUrl, every = parseInt(root.dataset.pollMs, 10) || 1000;
  var stamp = document.getElementById("floor-stamp");
  var last = {};

  function typing(part) {
    var active = document.activeElement;
    if (active && part.contains(active) && active.name === "note") { return true; }
    return Array.prototype.some.call(part.querySelectorAll("input[name=note]"), function (i) { return i.value; });
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) {
        var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
        if (!response.ok || !json) { throw new Error(response.ok ? "signed out? reload the page" : "HTTP " + response.status); }
        return response.json();
      })
      .then(function (data) {
        Object.keys(data.html).forEach(function (name) {
          var part = document.getElementById("floor-" + name);
          if (!part || last[name] === data.html[name] || (name === "alerts" && typing(part))) { return; }
          part.innerHTML = data.html[name];
          last[name] = data.html[name];
        });
        stamp.textContent = "refreshed " + new Date().toLocaleTimeString();
        stamp.className = "";
      })
      .catch(function (error) {
        stamp.textContent = "not refreshed: " + error.message;
        stamp.className = "stale";
      })
      .then(function () { window.setTimeout(poll, every); });
  }

  window.setTimeout(poll, every);
}());
