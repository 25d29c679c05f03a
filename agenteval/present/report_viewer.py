"""The report's viewer machinery: the list's data as inert JSON, the one script, the CSS, the CSP.

The conversation list (and the RAG report's case list) and the task x attempt grid are drawn
by one inline script from a ``<script type="application/json">`` block: a row of a few values
per conversation, so the list and the grid cover every conversation of a 10,000-conversation
run in well under a megabyte, while the opened conversations (the drill-down) are HTML
written and escaped in Python, hidden until opened. The script builds every element with
``textContent`` (never ``innerHTML``), so no text from the data can become markup; the JSON is
written with ``<``, ``>`` and ``&`` as ``\\u`` escapes, so no text can close its block.

The page carries a Content-Security-Policy: nothing may be loaded from anywhere (images only
from inline ``data:``), and only the one script whose SHA-256 is in the policy may run, so even
markup that slipped through could neither run (inline handlers, ``javascript:`` URLs) nor
fetch anything.

Texts keep their exact value in the JSON (a permalink matches the id in results.json); the
script shows control characters, bidirectional overrides and lone surrogates as visible
``\\uXXXX`` escapes, as ``agenteval._util.sanitize.terminal`` does for the HTML.

Row format (``data["rows"]``): the values of ``data["cols"]`` in order, then the position of
the conversation's drill-down article (``c-POSITION``; -1 when the drill-down cap left it out),
then 1 when it needs a look (not fully correct, or judge errors), else 0. The first column is
the id in the permalink ``#KEY=ID`` (``data["key"]``: ``session`` or ``case``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from typing import Any

__all__ = ["VIEWER_CSS", "VIEWER_JS", "csp_meta", "data_block", "json_safe_text", "list_section",
           "script_block", "view_section"]


def json_safe_text(value: Any) -> Any:
    """``value`` with NaN and infinities as None and floats rounded to 4 places, for the JSON."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 4)
    if isinstance(value, dict):
        return {str(k): json_safe_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe_text(v) for v in value]
    return value


_JSON_ESCAPED = re.compile("[<>&\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                           "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Written as JSON ``\\uXXXX`` escapes: what could close the block, and what
``agenteval._util.sanitize.terminal`` makes visible (the script shows those as ``\\uXXXX`` too,
while ids keep their exact value, so a permalink matches the id in results.json)."""


def data_block(data: dict[str, Any], *, element_id: str = "report-data") -> str:
    """``data`` as an inert JSON block that no text inside it can close."""
    text = json.dumps(json_safe_text(data), ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)
    text = _JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def script_block(js: str = "") -> tuple[str, str]:
    """(the ``<script>`` element, its CSP source ``'sha256-...'``) for the inline ``js``."""
    js = js or VIEWER_JS
    digest = base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode("ascii")
    return f"<script>{js}</script>", f"'sha256-{digest}'"


def csp_meta(*script_sources: str) -> str:
    """The page's Content-Security-Policy (module docstring): only the listed scripts run."""
    scripts = " ".join(script_sources) if script_sources else "'none'"
    policy = (f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
              f"script-src {scripts}; base-uri 'none'; form-action 'none'")
    return f'<meta http-equiv="Content-Security-Policy" content="{policy}">'


def list_section(*, section_id: str, title: str, noun: str, selects: list[tuple[int, str]],
                 look_label: str | None, intro: str = "") -> str:
    """The sortable, filterable list's frame (the script fills the table): a text filter,
    one select per (column index, label), and a 'needs a look' checkbox when labelled."""
    from agenteval.present.report_parts import esc

    parts = [f'<section id="{section_id}"><h2>{esc(title)}</h2>{intro}<div class="tools">'
             f'<input id="filter" type="search" placeholder="filter by any text" '
             f'title="matches the id, agent, task, outcome, and any text of a drilled-down {esc(noun)}" aria-label="filter">']
    for col, label in selects:
        parts.append(f'<label>{esc(label)} <select data-col="{col}" aria-label="{esc(label)}">'
                     '<option value="">all</option></select></label>')
    if look_label:
        parts.append(f'<label><input id="only-look" type="checkbox"> {esc(look_label)}</label>')
    parts.append('<span id="shown"></span></div>'
                 '<div class="list-scroll"><table class="list" id="list"></table></div>'
                 '<p><button type="button" id="more" hidden></button></p>'
                 f'<p class="muted">Click a column to sort (again: reverse); click a row to open '
                 f"the {esc(noun)} below (keys j / k: the next / previous one). Its address (<code>#{'session' if noun == 'conversation' else 'case'}=...</code>) "
                 "is a permalink.</p></section>")
    return "".join(parts)


def view_section(noun: str, articles: str) -> str:
    """Where one opened item shows; ``articles`` are its hidden ``<article id="c-N">``."""
    from agenteval.present.report_parts import esc

    return (f'<section id="conversation"><h2 id="view-title">{esc(noun.capitalize())}</h2>'
            '<div id="view-nav" hidden><button type="button" id="prev">&larr; previous in the list'
            '</button><button type="button" id="next" title="key j; previous: k">next in the list &rarr;</button>'
            '<button type="button" id="copy-link">permalink</button>'
            '<input id="permalink" readonly hidden size="60" aria-label="permalink"></div>'
            f'<p id="view-empty" class="muted">Click a cell of the grid or a row of the list to '
            f"open a {esc(noun)} here.</p>"
            f'<div id="view">{articles}</div></section>')


VIEWER_CSS = """
:root { --fg: #1b1f24; --muted: #5f6b7a; --line: #d8dee4; --bg2: #f6f8fa;
        --ok: #1a7f37; --bad: #b3261e; --unk: #9a6700; --sel: #0b57d0; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0; background: #fff; }
section { scroll-margin-top: 40px; }
main { max-width: 1400px; margin: 0 auto; padding: 8px 24px 48px; }
nav.top { position: sticky; top: 0; z-index: 5; background: #fff; border-bottom: 1px solid var(--line);
          padding: 6px 24px; font-size: 13px; }
nav.top a { margin-right: 14px; color: var(--sel); text-decoration: none; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px;
  border-bottom: 1px solid var(--line); padding-bottom: 4px; } h3 { font-size: 15px; margin: 14px 0 4px; }
h4 { margin: 6px 0; font-size: 13px; }
.run, .method, .muted, .ci { color: var(--muted); } .run { margin: 2px 0; }
.scroll { overflow-x: auto; } .scroll table.grid { font-size: 13px; }
table.grid { border-collapse: collapse; margin: 6px 0; }
table.grid th, table.grid td { border: 1px solid var(--line); padding: 3px 7px; vertical-align: top; }
table.grid th { background: var(--bg2); text-align: left; white-space: nowrap; }
td.id { white-space: nowrap; }
table.summary td.desc { color: var(--muted); font-size: 12px; max-width: 420px; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.kv { border-collapse: collapse; } table.kv th { text-align: left; color: var(--muted);
  font-weight: 500; padding: 2px 12px 2px 0; vertical-align: top; white-space: nowrap; }
table.kv td { padding: 2px 0; }
details.legend { margin: 4px 0 8px; color: var(--muted); } details.legend dt { font-weight: 600; }
details.legend dd { margin: 0 0 4px 16px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; color: #fff;
         white-space: nowrap; }
.badge.full { background: var(--ok); } .badge.wrong { background: var(--bad); }
.badge.unknown { background: var(--unk); } .badge.part { background: #bc4c00; }
pre { background: var(--bg2); padding: 6px 8px; margin: 2px 0 4px; overflow-x: auto;
      white-space: pre-wrap; word-break: break-word; font-size: 12.5px; border-radius: 4px; }
pre.text { font-family: inherit; font-size: 13.5px; background: none; padding: 0 0 0 2px; }
pre.output { border-left: 3px solid #8fb4d9; }
figure { display: inline-block; margin: 8px 12px 8px 0; vertical-align: top; }
figure img { max-width: 560px; width: 100%; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 12px; }
.banner { background: #fff4e0; border: 1px solid #e5b567; padding: 6px 10px; border-radius: 6px; }
.legend-row { color: var(--muted); font-size: 12px; margin: 2px 0 6px; }
.legend-row .cell { vertical-align: middle; margin: 0 3px 0 8px; cursor: default; }
/* the grid */
.grid-agent { margin: 8px 0 16px; }
.grid-scroll { max-height: 460px; overflow: auto; display: inline-block; max-width: 100%; border: 1px solid var(--line); border-radius: 6px; }
table.tg { border-collapse: collapse; font-size: 12.5px; }
table.tg th.task { text-align: left; font-weight: 500; padding: 1px 10px 1px 6px; white-space: nowrap;
  max-width: 320px; overflow: hidden; text-overflow: ellipsis; }
table.tg td.cells { padding: 2px 4px; } table.tg td.num { padding: 1px 8px; color: var(--muted); }
table.tg tr:nth-child(even) { background: #fafbfc; }
.cell { display: inline-block; width: 16px; height: 16px; margin: 1px; border-radius: 3px;
        cursor: pointer; vertical-align: middle; }
.cell.full { background: var(--ok); } .cell.wrong { background: var(--bad); }
.cell.unknown { background: var(--unk); } .cell.part { background: #bc4c00; }
.cell.nd { opacity: .45; } .cell.sel { outline: 2px solid var(--sel); outline-offset: 1px; }
/* the list */
.tools { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 6px 0; }
.tools input[type=search] { width: 300px; padding: 4px 6px; }
#shown { color: var(--muted); }
.list-scroll { max-height: 440px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
table.list { border-collapse: collapse; width: 100%; font-size: 13px; }
table.list th { position: sticky; top: 0; background: var(--bg2); text-align: left; cursor: pointer;
  padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; user-select: none; }
table.list th[aria-sort=ascending]::after { content: " \\25B2"; font-size: 10px; }
table.list th[aria-sort=descending]::after { content: " \\25BC"; font-size: 10px; }
table.list td { padding: 3px 8px; border-bottom: 1px solid #eef1f4; white-space: nowrap;
  max-width: 360px; overflow: hidden; text-overflow: ellipsis; }
table.list tbody tr { cursor: pointer; } table.list tbody tr:hover { background: #f0f5ff; }
table.list tr.sel { background: #e3ecfd; }
table.list a { color: var(--sel); text-decoration: none; }
/* one opened conversation */
#view-nav { display: flex; gap: 8px; align-items: center; margin: 4px 0 8px; }
article.conv { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px 12px; }
.conv-head p { margin: 2px 0; } .conv-head .sid { font-size: 15px; }
.harness { background: #eef6ff; border: 1px solid #b6d4f5; border-radius: 6px; padding: 4px 10px; margin: 8px 0; }
section.turn { border-left: 3px solid var(--line); padding: 2px 0 4px 10px; margin: 12px 0; }
.turn-head { font-weight: 600; margin-bottom: 4px; } .turn-head .muted { font-weight: 400; }
.msg { margin: 4px 0; padding: 4px 8px; border-radius: 6px; }
.msg .who { font-size: 11.5px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted);
  font-weight: 600; }
.msg.user { background: #f3f6fb; } .msg.assistant { background: #f4fbf5; }
.msg.tool { background: #fbfaf3; border: 1px dashed #dcd6b4; } .msg.tool .who { text-transform: none; }
.msg.ref { background: #f8f4fb; } .msg.system, .msg.obs { background: #f6f6f6; }
.msg.tool .muted { font-size: 11.5px; }
code.tname { font-size: 13px; color: #6a3d00; }
.verdict { margin: 6px 0; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; }
.verdict pre.reason { display: inline; background: none; padding: 0; font-family: inherit; font-size: 13px; }
.err { color: var(--bad); }
details.long > summary { cursor: pointer; color: var(--fg); }
details.long > summary .preview { font-family: ui-monospace, monospace; font-size: 12.5px; }
.tool { margin: 6px 0 0; } .graders { margin: 6px 0; }
.stub { border: 1px dashed var(--line); border-radius: 8px; padding: 8px 14px; }
"""

VIEWER_JS = r"""
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var cols = D.cols, rows = D.rows, KEY = D.key, NC = cols.length, DI = NC, LOOK = NC + 1;
  var byId = Object.create(null), order = [], shownRows = [], current = null, selected = -1, limit = D.page;
  var sortCol = -1, sortDir = 1, texts = [];
  rows.forEach(function (r, i) { if (!(r[0] in byId)) byId[r[0]] = i; });
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  var UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;
  function vis(s) {  // as agenteval._util.sanitize.terminal: visible \\uXXXX escapes
    return String(s).replace(UNSAFE, function (ch) {
      return '\\u' + ('000' + ch.charCodeAt(0).toString(16)).slice(-4);
    });
  }
  function link(i) {
    var id = String(rows[i][0]);
    try { return '#' + KEY + '=' + encodeURIComponent(id); }
    catch (e) { return '#' + KEY + '=' + encodeURIComponent(vis(id)); }
  }
  function show(c, v) {
    if (v === null || v === undefined) return c.kind === 'num' && !c.blank ? 'n/a' : '';
    if (c.kind === 'outcome') return D.outcomes[v][0];
    if (c.kind === 'num' && typeof v === 'number' && c.digits !== undefined) return v.toFixed(c.digits);
    return vis(v);
  }
  var oc = -1;
  cols.forEach(function (c, j) { if (c.kind === 'outcome') oc = j; });
  function cellClass(i) { return oc < 0 ? '' : D.outcomes[rows[i][oc]][1]; }

  // ------------------------------------------------------------------ the grid
  var grid = document.getElementById('grid');
  var gridCells = {};
  if (grid && D.grid) {
    D.grid.forEach(function (agent) {
      var box = el('div', 'grid-agent');
      var h = el('h3', null, vis(agent.name));
      h.appendChild(el('span', 'muted', '  ' + agent.note));
      box.appendChild(h);
      var wrap = el('div', 'grid-scroll'), table = el('table', 'tg'), body = el('tbody');
      agent.rows.forEach(function (t) {
        var tr = el('tr'), th = el('th', 'task', vis(t[0])), td = el('td', 'cells'), ok = 0;
        th.title = vis(t[0]);
        t[1].forEach(function (i) {
          var a = el('a', 'cell ' + cellClass(i) + (rows[i][DI] < 0 ? ' nd' : ''));
          a.href = link(i);
          a.title = vis(rows[i][0]) + ': ' + show(cols[oc], rows[i][oc]);
          a.setAttribute('aria-label', a.title);
          a.setAttribute('data-i', i);
          if (rows[i][oc] === 'ok') ok++;
          gridCells[i] = a;
          td.appendChild(a);
        });
        tr.appendChild(th); tr.appendChild(td);
        tr.appendChild(el('td', 'num', ok + ' of ' + t[1].length));
        body.appendChild(tr);
      });
      table.appendChild(body); wrap.appendChild(table); box.appendChild(wrap);
      grid.appendChild(box);
    });
  }

  // ------------------------------------------------------------------ the list
  var table = document.getElementById('list'), head = el('thead'), hr = el('tr');
  var tbody = el('tbody');
  cols.forEach(function (c, j) {
    var th = el('th', c.kind === 'num' ? 'num' : null, c.label);
    th.title = c.title || ('sort by ' + c.label);
    th.setAttribute('data-col', j);
    th.addEventListener('click', function () {
      sortDir = sortCol === j ? -sortDir : 1; sortCol = j; apply();
    });
    hr.appendChild(th);
  });
  head.appendChild(hr); table.appendChild(head); table.appendChild(tbody);
  var box = document.getElementById('filter'), flag = document.getElementById('only-look');
  var more = document.getElementById('more'), count = document.getElementById('shown');
  var selects = [];
  Array.prototype.forEach.call(document.querySelectorAll('select[data-col]'), function (s) {
    var j = +s.getAttribute('data-col'), seen = Object.create(null);
    rows.forEach(function (r) { seen[r[j]] = 1; });
    Object.keys(seen).sort().forEach(function (v) {
      var o = el('option', null, show(cols[j], v)); o.value = v; s.appendChild(o);
    });
    s.addEventListener('change', apply); selects.push([j, s]);
  });
  function textOf(i) {
    if (texts[i] === undefined) {
      var d = rows[i][DI], art = d >= 0 ? document.getElementById('c-' + d) : null;
      texts[i] = art ? art.textContent.toLowerCase() : '';
    }
    return texts[i];
  }
  function matches(i, q) {
    var r = rows[i];
    for (var j = 0; j < NC; j++) {
      if (cols[j].kind !== 'num' && String(show(cols[j], r[j])).toLowerCase().indexOf(q) >= 0) return true;
    }
    return textOf(i).indexOf(q) >= 0;
  }
  function cmp(a, b) {
    var x = rows[a][sortCol], y = rows[b][sortCol];
    if (x === y) return a - b;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * sortDir;
  }
  function apply() {
    var q = (box.value || '').toLowerCase(), out = [];
    for (var i = 0; i < rows.length; i++) {
      if (flag && flag.checked && rows[i][LOOK] !== 1) continue;
      var ok = true;
      for (var s = 0; s < selects.length; s++) {
        var v = selects[s][1].value;
        if (v !== '' && String(rows[i][selects[s][0]]) !== v) { ok = false; break; }
      }
      if (ok && q && !matches(i, q)) ok = false;
      if (ok) out.push(i);
    }
    if (sortCol >= 0) out.sort(cmp);
    Array.prototype.forEach.call(hr.children, function (th, j) {
      if (j === sortCol) th.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    });
    order = out;
    render();
  }
  function render() {
    var frag = document.createDocumentFragment(), n = Math.min(order.length, limit);
    shownRows = [];
    for (var k = 0; k < n; k++) {
      var i = order[k], r = rows[i], tr = el('tr');
      tr.setAttribute('data-i', i);
      for (var j = 0; j < NC; j++) {
        var td = el('td', cols[j].kind === 'num' ? 'num' : null);
        if (j === 0) { var a = el('a', null, show(cols[j], r[j])); a.href = link(i); td.appendChild(a); }
        else if (cols[j].kind === 'outcome') td.appendChild(el('span', 'badge ' + D.outcomes[r[j]][1], show(cols[j], r[j])));
        else td.textContent = show(cols[j], r[j]);
        if (cols[j].kind !== 'num') td.title = td.textContent;
        tr.appendChild(td);
      }
      if (i === selected) tr.className = 'sel';
      frag.appendChild(tr); shownRows.push(tr);
    }
    tbody.textContent = '';
    tbody.appendChild(frag);
    count.textContent = order.length + ' of ' + rows.length + ' shown' +
      (order.length > n ? ' (the first ' + n + ' listed)' : '');
    more.hidden = order.length <= n;
    more.textContent = 'list all ' + order.length;
  }
  tbody.addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr');
    if (tr && ev.target.tagName !== 'A') location.hash = link(+tr.getAttribute('data-i'));
  });
  box.addEventListener('input', apply);
  if (flag) flag.addEventListener('change', apply);
  more.addEventListener('click', function () { limit = Infinity; render(); });

  // ------------------------------------------------------------------ one opened conversation
  var view = document.getElementById('view'), empty = document.getElementById('view-empty');
  var title = document.getElementById('view-title');
  function stub(i) {
    var s = el('div', 'stub'), r = rows[i];
    var p = el('p'); p.appendChild(el('b', 'sid', vis(r[0]))); s.appendChild(p);
    cols.forEach(function (c, j) {
      if (j) { var q = el('p'); q.appendChild(el('span', 'muted', c.label + ' ')); q.appendChild(document.createTextNode(show(c, r[j]))); s.appendChild(q); }
    });
    s.appendChild(el('p', 'banner', D.capped));
    return s;
  }
  function openRow(i) {
    if (current) { if (current.classList.contains('stub')) current.remove(); else current.hidden = true; }
    if (selected >= 0 && gridCells[selected]) gridCells[selected].classList.remove('sel');
    selected = i; current = null;
    shownRows.forEach(function (tr) { tr.className = +tr.getAttribute('data-i') === i ? 'sel' : ''; });
    if (i < 0) { empty.hidden = false; return; }
    empty.hidden = true;
    if (gridCells[i]) gridCells[i].classList.add('sel');
    var d = rows[i][DI];
    current = d >= 0 ? document.getElementById('c-' + d) : stub(i);
    if (d >= 0) current.hidden = false; else view.appendChild(current);
    title.textContent = D.noun + ' ' + vis(rows[i][0]);
    document.getElementById('view-nav').hidden = false;
    document.getElementById('conversation').scrollIntoView();
  }
  function fromHash() {
    var h = location.hash, p = '#' + KEY + '=';
    if (h.indexOf(p) !== 0) return;
    var id;
    try { id = decodeURIComponent(h.slice(p.length)); } catch (e) { id = null; }
    if (id !== null && id in byId) openRow(byId[id]);
    else { openRow(-1); empty.textContent = 'No ' + D.noun + ' with that id in this report.'; }
  }
  function step(by) {
    var k = order.indexOf(selected);
    var next = order[k < 0 ? 0 : Math.max(0, Math.min(order.length - 1, k + by))];
    if (next === undefined) return;
    openRow(next);  // at once: a second key press before the hashchange goes one further
    location.hash = link(next);
  }
  document.getElementById('prev').addEventListener('click', function () { step(-1); });
  document.getElementById('next').addEventListener('click', function () { step(1); });
  document.getElementById('copy-link').addEventListener('click', function () {
    var out = document.getElementById('permalink');
    out.value = location.href; out.hidden = false; out.select();
  });
  document.addEventListener('keydown', function (ev) {  // j / k: next / previous in the list
    var tag = ev.target && ev.target.tagName;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || tag === 'INPUT' || tag === 'SELECT') return;
    if (ev.key === 'j') step(1); else if (ev.key === 'k') step(-1);
  });
  window.addEventListener('hashchange', fromHash);
  apply();
  fromHash();
  document.documentElement.setAttribute('data-ready', '1');
})();
"""
