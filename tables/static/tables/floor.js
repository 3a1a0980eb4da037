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
  // the page's words in its language (the template's data-*), and the time on a 24-hour
  // clock in that language, as the casino's times are everywhere else
  var words = root.dataset;
  var clock = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23"
  });

  function typing(part) {
    var active = document.activeElement;
    if (active && part.contains(active) && active.name === "note") { return true; }
    return Array.prototype.some.call(part.querySelectorAll("input[name=note]"), function (i) { return i.value; });
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) {
        var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
        if (!response.ok || !json) { throw new Error(response.ok ? words.signedOut : "HTTP " + response.status); }
        return response.json();
      })
      .then(function (data) {
        Object.keys(data.html).forEach(function (name) {
          var part = document.getElementById("floor-" + name);
          if (!part || last[name] === data.html[name] || (name === "alerts" && typing(part))) { return; }
          part.innerHTML = data.html[name];
          last[name] = data.html[name];
        });
        stamp.textContent = words.refreshed + " " + clock.format(new Date());
        stamp.className = "";
      })
      .catch(function (error) {
        stamp.textContent = words.notRefreshed + ": " + error.message;
        stamp.className = "stale";
      })
      .then(function () { window.setTimeout(poll, every); });
  }

  window.setTimeout(poll, every);
}());
