"""The HTML of ``GET /status``: one self-contained page (inline CSS and JS, no assets).

The page renders ``status.json`` (fetched from the same origin, with the same
credentials) and fetches it again every few seconds; it never writes.
"""

import html

from common import version

REFRESH_SECONDS = 5

# Content-Security-Policy of the page: nothing but itself and status.json
CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
       "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>berth status</title>
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f4f6f8;
        color: #1d2733; }
 header { background: #1f3a5f; color: #fff; padding: 12px 24px; display: flex;
          align-items: baseline; gap: 24px; }
 header h1 { font-size: 20px; margin: 0; }
 header .meta { opacity: .8; font-size: 13px; }
 main { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; padding: 16px 24px; }
 section { background: #fff; border-radius: 6px; padding: 12px 16px;
           box-shadow: 0 1px 2px rgba(0,0,0,.12); }
 section.wide { grid-column: 1 / 3; }
 h2 { font-size: 15px; margin: 0 0 8px; }
 table { border-collapse: collapse; width: 100%; }
 th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e3e7eb; }
 th { font-weight: 600; color: #52606d; font-size: 12px; }
 .ok { color: #1e7b34; } .warn { color: #b25e00; } .bad { color: #b3261e; }
 .states { display: flex; gap: 12px; margin-bottom: 8px; }
 .state { border-radius: 6px; padding: 8px 14px; min-width: 90px; color: #fff; }
 .state b { display: block; font-size: 22px; }
 .state-allocating { background: #d98e04; } .state-active { background: #2e8540; }
 .state-error { background: #c62828; }
 .bar { position: relative; height: 16px; background: #e3e7eb; border-radius: 3px;
        min-width: 160px; overflow: hidden; }
 .fill { position: absolute; left: 0; top: 0; bottom: 0; background: #2f6fb3; }
 .fill.high { background: #c62828; }
 .num { font-variant-numeric: tabular-nums; white-space: nowrap; }
 .small { font-size: 12px; color: #52606d; }
 #error { display: none; background: #fdecea; color: #b3261e; padding: 8px 24px; }
 #unreachable { display: none; background: #b3261e; color: #fff; padding: 8px 24px;
                font-weight: 600; }
 h2.sub { margin-top: 14px; }
 tr.dead td { background: #fdecea; }
</style>
</head>
<body>
<header><h1>berth status</h1>
 <span class="meta" id="updated">loading&hellip;</span>
 <span class="meta">refreshes every @REFRESH@ s</span>
 <span class="meta" id="version">berth @VERSION@</span></header>
<div id="error"></div>
<div id="unreachable" role="alert"></div>
<main>
 <section id="conductors"><h2>Conductors in the ring</h2>
  <table><thead><tr><th>host</th><th>RPC</th><th>joined</th><th>heartbeat</th>
  <th>ping</th></tr></thead><tbody id="conductor-rows"></tbody></table>
  <h2 class="sub">Registered conductors</h2>
  <table><thead><tr><th>host</th><th>group</th><th>state</th><th>last heartbeat</th>
  </tr></thead><tbody id="registry-rows"></tbody></table></section>
 <section id="node-allocations"><h2>Node allocations</h2>
  <div class="states" id="state-counts"></div>
  <div id="oldest" class="small"></div></section>
 <section id="capacity" class="wide"><h2>Capacity by resource class</h2>
  <table><thead><tr><th>class</th><th>used / capacity</th><th></th><th>providers</th>
  <th>top consumers</th></tr></thead><tbody id="capacity-rows"></tbody></table></section>
 <section id="fullest"><h2>Fullest providers</h2>
  <table><thead><tr><th>class</th><th>provider</th><th>used / capacity</th><th></th>
  </tr></thead><tbody id="fullest-rows"></tbody></table></section>
 <section id="nodes"><h2>Bare-metal nodes by resource class</h2>
  <table><thead><tr><th>resource class</th><th>free</th><th>allocated</th>
  <th>unavailable</th></tr></thead><tbody id="node-rows"></tbody></table></section>
</main>
<script>
"use strict";
function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  (children || []).forEach(function (c) {
    node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  });
  return node;
}
function age(seconds) {
  if (seconds === null || seconds === undefined) { return "\\u2014"; }
  if (seconds < 120) { return seconds.toFixed(1) + " s ago"; }
  if (seconds < 7200) { return Math.round(seconds / 60) + " min ago"; }
  return Math.round(seconds / 3600) + " h ago";
}
function fill(id, rows) {
  var body = document.getElementById(id);
  while (body.firstChild) { body.removeChild(body.firstChild); }
  rows.forEach(function (r) { body.appendChild(r); });
}
function conductors(list, interval) {
  fill("conductor-rows", list.map(function (c) {
    var ping = c.ping_error ? el("span", {"class": "bad", title: c.ping_error},
                                 ["no answer"])
                            : el("span", {"class": "ok"}, [c.ping_ms + " ms"]);
    // a heartbeat is stamped every ring refresh; three missed ones look wrong
    var stale = c.heartbeat_age !== null && c.heartbeat_age > 3 * interval;
    var beat = c.heartbeat_age === null
      ? el("span", {"class": "small", title: "this coordination backend publishes " +
                    "no heartbeat times; membership itself is kept alive by it"},
           ["n/a"])
      : age(c.heartbeat_age);
    return el("tr", {"data-host": c.host}, [
      el("td", {}, [c.host]), el("td", {}, [c.rpc_api_version || "?"]),
      el("td", {}, [age(c.joined_age)]),
      el("td", {"class": stale ? "warn" : ""}, [beat]),
      el("td", {}, [ping])]);
  }));
  if (!list.length) {
    fill("conductor-rows", [el("tr", {}, [el("td", {colspan: "5", "class": "bad"},
                                              ["no conductor is alive"])])]);
  }
}
// every conductor that registered, alive or dead, until it is forgotten
function registry(list, timeout) {
  fill("registry-rows", list.map(function (c) {
    var state = c.alive ? el("span", {"class": "ok"}, ["alive"])
      : el("span", {"class": "bad", title: c.online
                    ? "no heartbeat for more than " + timeout + " s"
                    : "stopped (marked itself offline)"},
           [c.online ? "dead" : "stopped"]);
    return el("tr", {"data-registered": c.hostname, "data-alive": String(c.alive),
                     "class": c.alive ? "" : "dead"}, [
      el("td", {}, [c.hostname]), el("td", {}, [c.conductor_group || "(default)"]),
      el("td", {}, [state]),
      el("td", {"class": c.alive ? "" : "bad"}, [age(c.heartbeat_age)])]);
  }));
  if (!list.length) {
    fill("registry-rows", [el("tr", {}, [el("td", {colspan: "4", "class": "small"},
                                            ["no conductor has registered"])])]);
  }
}
function allocations(summary) {
  var box = document.getElementById("state-counts");
  while (box.firstChild) { box.removeChild(box.firstChild); }
  Object.keys(summary.counts).forEach(function (state) {
    box.appendChild(el("div", {"class": "state state-" + state, "data-state": state},
                       [el("b", {}, [String(summary.counts[state])]), state]));
  });
  var oldest = document.getElementById("oldest");
  oldest.textContent = summary.oldest_allocating_uuid
    ? "oldest allocating: " + summary.oldest_allocating_uuid + " on " +
      summary.oldest_allocating_conductor + ", created " +
      age(summary.oldest_allocating_age)
    : "nothing is allocating";
}
function capacity(classes) {
  fill("capacity-rows", classes.map(function (c) {
    var pct = c.capacity > 0 ? Math.min(100, 100 * c.used / c.capacity) : 0;
    var bar = el("div", {"class": "bar", title: pct.toFixed(1) + "%"},
                 [el("div", {"class": "fill" + (pct >= 90 ? " high" : ""),
                             style: "width:" + pct.toFixed(1) + "%"})]);
    var top = c.top_consumers.map(function (t) {
      return t.consumer_uuid + " (" + (t.project_id || "?") + ") " + t.used;
    }).join(", ");
    return el("tr", {"data-class": c.resource_class}, [
      el("td", {}, [c.resource_class]),
      el("td", {"class": "num"}, [c.used + " / " + c.capacity]),
      el("td", {}, [bar]), el("td", {"class": "num"}, [String(c.providers)]),
      el("td", {"class": "small"}, [top || "\\u2014"])]);
  }));
}
function bar(used, capacity) {
  var pct = capacity > 0 ? Math.min(100, 100 * used / capacity) : 0;
  return el("div", {"class": "bar", title: pct.toFixed(1) + "%"},
            [el("div", {"class": "fill" + (pct >= 90 ? " high" : ""),
                        style: "width:" + pct.toFixed(1) + "%"})]);
}
// the fullest providers of each class (used / capacity), ties by uuid
function fullest(list) {
  fill("fullest-rows", list.map(function (f) {
    return el("tr", {"data-fullest": f.resource_class + "/" + f.provider}, [
      el("td", {}, [f.resource_class]),
      el("td", {title: f.provider}, [f.name || f.provider]),
      el("td", {"class": "num" + (f.free <= 0 ? " bad" : "")},
         [f.used + " / " + f.capacity]),
      el("td", {}, [bar(f.used, f.capacity)])]);
  }));
  if (!list.length) {
    fill("fullest-rows", [el("tr", {}, [el("td", {colspan: "4", "class": "small"},
                                          ["nothing is allocated"])])]);
  }
}
function nodes(byClass) {
  var names = Object.keys(byClass).sort();
  fill("node-rows", names.map(function (rc) {
    var n = byClass[rc];
    return el("tr", {"data-node-class": rc}, [
      el("td", {}, [rc]),
      el("td", {"class": "num" + (n.free === 0 ? " bad" : "")}, [String(n.free)]),
      el("td", {"class": "num"}, [String(n.allocated)]),
      el("td", {"class": "num"}, [String(n.unavailable)])]);
  }));
  if (!names.length) {
    fill("node-rows", [el("tr", {}, [el("td", {colspan: "4", "class": "small"},
                                       ["no node has a resource class"])])]);
  }
}
function unreachable(names) {
  // what the API process cannot reach now (status.json's "unreachable")
  var box = document.getElementById("unreachable");
  box.textContent = names.length ? "cannot reach: " + names.join(", ") : "";
  box.setAttribute("data-unreachable", names.join(" "));
  box.style.display = names.length ? "block" : "none";
}
function refresh() {
  fetch("status.json", {credentials: "same-origin", cache: "no-store",
                        headers: {"Accept": "application/json"}})
    .then(function (resp) {
      if (!resp.ok) { throw new Error("status.json answered " + resp.status); }
      return resp.json();
    })
    .then(function (data) {
      unreachable(data.unreachable || []);
      conductors(data.conductors, data.heartbeat_interval);
      registry(data.registered_conductors || [], data.heartbeat_timeout);
      allocations(data.node_allocations);
      capacity(data.capacity);
      fullest(data.fullest_providers || []);
      nodes(data.baremetal_nodes || {});
      document.getElementById("updated").textContent = "updated " + data.generated_at;
      document.getElementById("error").style.display = "none";
      document.body.setAttribute("data-loaded", "true");
    })
    .catch(function (err) {
      var box = document.getElementById("error");
      box.textContent = String(err);
      box.style.display = "block";
    });
}
refresh();
setInterval(refresh, @REFRESH@ * 1000);
</script>
</body>
</html>
"""

PAGE = _TEMPLATE.replace('@REFRESH@', str(REFRESH_SECONDS)).replace(
    '@VERSION@', html.escape(version.version_string()))
