// Filters, sorting and row expansion of the readiness and contract reports. Reads data-
// attributes only.
(function () {
  'use strict';
  var table = document.getElementById('ops');
  var form = document.getElementById('filters');
  if (!table || !form) return;
  var rows = Array.prototype.filter.call(table.tBodies, function (b) { return b.classList.contains('op'); });
  var shown = document.getElementById('shown');
  var empty = document.getElementById('empty');
  var rank = { 'unsafe': 0, 'needs-work': 1, 'ready': 2 };
  var states = { 'unprotected': 0, 'key-incomplete': 1, 'retry-safe-with-reconcile': 2, 'retry-safe': 3 };
  var f = form.elements;
  // A report without a policy has no readiness filter.
  function val(name) { return f[name] ? f[name].value : ''; }

  rows.forEach(function (r) {
    var d = r.dataset;
    r._tags = d.tags ? d.tags.split('\n') : [];
    r._rules = d.rules ? d.rules.split(' ') : [];
    r._text = [d.method, d.path, d.id, d.tags].join(' ').toLowerCase();
  });

  function plural(n) { return n.toLocaleString('en-US') + (n === 1 ? ' operation' : ' operations'); }

  function apply() {
    var q = f.q.value.trim().toLowerCase();
    var want = { readiness: val('readiness'), contract: val('contract'), method: val('method'), tag: val('tag'), rule: val('rule') };
    var n = 0;
    rows.forEach(function (r) {
      var d = r.dataset;
      var ok = (!want.readiness || d.readiness === want.readiness) &&
        (!want.contract || d.contract === want.contract) &&
        (!want.method || d.method === want.method) &&
        (!want.tag || r._tags.indexOf(want.tag) >= 0) &&
        (!want.rule || r._rules.indexOf(want.rule) >= 0) &&
        (!q || r._text.indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n === rows.length ? plural(n) : 'Showing ' + n.toLocaleString('en-US') + ' of ' + plural(rows.length);
    empty.hidden = n > 0;
  }

  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  form.addEventListener('reset', function () { setTimeout(apply, 0); });

  // Summary cards and rule counts set a filter.
  document.addEventListener('click', function (e) {
    var b = e.target.closest('[data-set]');
    if (!b) return;
    var field = f[b.dataset.set];
    if (!field) return;
    field.value = field.value === b.dataset.value ? '' : b.dataset.value;
    apply();
    document.getElementById('operations').scrollIntoView({ behavior: 'smooth', block: 'start' });
  });

  // Sorting: click a header (most findings first); again to reverse. Ties keep the report's order.
  var sortKey = f.readiness ? 'readiness' : 'contract';
  var dir = 1;
  function key(r, k) {
    var d = r.dataset;
    if (k === 'readiness') return rank[d.readiness];
    if (k === 'contract') return states[d.contract];
    if (k === 'reason') return (r.querySelector('.c-why') || {}).textContent || '\uffff';
    if (k === 'findings') return Number(d.findings);
    if (k === 'tags') return r._tags[0] || '\uffff';
    return (d[k] || '\uffff').toLowerCase();
  }
  table.tHead.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-sort]');
    if (!b) return;
    var k = b.dataset.sort;
    dir = k === sortKey ? -dir : (k === 'findings' ? -1 : 1);
    sortKey = k;
    Array.prototype.forEach.call(table.tHead.querySelectorAll('th[aria-sort]'), function (th) {
      th.setAttribute('aria-sort', th.contains(b) ? (dir === 1 ? 'ascending' : 'descending') : 'none');
    });
    var sorted = rows.slice().sort(function (a, c) {
      var x = key(a, k), y = key(c, k);
      if (x < y) return -dir;
      if (x > y) return dir;
      return a.dataset.i - c.dataset.i;
    });
    var frag = document.createDocumentFragment();
    sorted.forEach(function (r) { frag.appendChild(r); });
    table.appendChild(frag);
  });

  // Expanding rows: the toggle button, a click on the row, or #op-N in the address.
  function setOpen(r, open) {
    r.classList.toggle('open', open);
    var t = r.querySelector('.tog');
    if (t) t.setAttribute('aria-expanded', open ? 'true' : 'false');
  }
  table.addEventListener('click', function (e) {
    if (!e.target.closest('.row') || e.target.closest('a')) return;
    if (!e.target.closest('.tog') && String(window.getSelection())) return;
    var r = e.target.closest('tbody.op');
    if (r) setOpen(r, !r.classList.contains('open'));
  });
  document.getElementById('expand-all').addEventListener('click', function () {
    rows.forEach(function (r) { if (!r.hidden) setOpen(r, true); });
  });
  document.getElementById('collapse-all').addEventListener('click', function () {
    rows.forEach(function (r) { setOpen(r, false); });
  });
  function fromHash() {
    var m = /^#op-(\d+)$/.exec(location.hash);
    var r = m && rows.filter(function (x) { return x.dataset.op === m[1]; })[0];
    if (!r) return;
    r.hidden = false;
    setOpen(r, true);
    var top = r.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight - 240) r.scrollIntoView({ block: 'start' });
  }
  window.addEventListener('hashchange', fromHash);
  fromHash();

  // "/" focuses the search box.
  document.addEventListener('keydown', function (e) {
    var tag = e.target.tagName;
    if (e.key === '/' && tag !== 'INPUT' && tag !== 'SELECT' && tag !== 'TEXTAREA') {
      e.preventDefault();
      f.q.focus();
    }
  });
  apply();
})();
