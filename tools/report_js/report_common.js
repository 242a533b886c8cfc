// Shared functions of the report.html pages (tools/report_html.h): sections, tables and charts
// (plotly.js), and the status line written once every chart has been drawn.
'use strict';

const moesim = {
  data: JSON.parse(document.getElementById('report-data').textContent),
  main: document.getElementById('report'),
  pending: [],
  charts: [],
  config: { responsive: true, displaylogo: false },

  element(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = String(text);
    return e;
  },

  section(title, note) {
    const s = moesim.element('section');
    s.appendChild(moesim.element('h2', {}, title));
    if (note) s.appendChild(moesim.element('p', { class: 'note' }, note));
    moesim.main.appendChild(s);
    return s;
  },

  row(parent) {
    const r = moesim.element('div', { class: 'row' });
    parent.appendChild(r);
    return r;
  },

  // rows: arrays of cells; numbers are right-aligned.
  table(parent, header, rows) {
    const t = moesim.element('table');
    const head = moesim.element('tr');
    for (const h of header) head.appendChild(moesim.element('th', {}, h));
    t.appendChild(head);
    for (const r of rows) {
      const tr = moesim.element('tr');
      for (const c of r) tr.appendChild(moesim.element('td', typeof c === 'number' ? { class: 'num' } : {}, moesim.text(c)));
      t.appendChild(tr);
    }
    const wrap = moesim.element('div', { class: 'table-wrap' });
    wrap.appendChild(t);
    parent.appendChild(wrap);
    return t;
  },

  text(v) {
    if (v === null || v === undefined) return '-';
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
    return String(v);
  },

  chart(parent, id, traces, layout, tall) {
    const div = moesim.element('div', { class: tall ? 'chart tall' : 'chart', id: id });
    parent.appendChild(div);
    const base = { margin: { t: 40, r: 20, b: 50, l: 70 }, hovermode: 'closest' };
    moesim.charts.push(id);
    // Drawn in finish(), once every element is in place, so each chart is sized to its final box.
    moesim.pending.push(() => Plotly.newPlot(div, traces, Object.assign(base, layout), moesim.config));
    return div;
  },

  // A status element tests and readers can rely on: which charts were drawn, the script errors
  // seen (window.moesimErrors, recorded from the first script of the page on) and the resources
  // fetched from outside the page.
  finish() {
    const done = () => {
      const errors = window.moesimErrors || [];
      const drawn = moesim.charts.filter((id) => {
        const div = document.getElementById(id);
        return div && div.querySelector('.main-svg') !== null;
      });
      // Anything fetched from outside the page (there should be nothing: it opens offline).
      const fetched = performance.getEntriesByType('resource')
        .filter((r) => !/^(data|blob|file):/.test(r.name)).map((r) => r.name);
      const s = moesim.element('div', {
        id: 'report-status',
        'data-charts': drawn.join(' '),
        'data-errors': String(errors.length),
        'data-fetched': String(fetched.length),
      });
      s.textContent = drawn.length + ' of ' + moesim.charts.length + ' charts drawn' +
        (errors.length ? '; script errors: ' + errors.join(' | ') : '') +
        (fetched.length ? '; fetched from outside: ' + fetched.join(' ') : '');
      if (errors.length || fetched.length || drawn.length !== moesim.charts.length) s.className = 'failed';
      moesim.main.appendChild(s);
    };
    let drawing;
    try {
      drawing = Promise.all(moesim.pending.map((draw) => draw()));
    } catch (e) {
      drawing = Promise.reject(e);
    }
    drawing.then(done, (e) => {
      (window.moesimErrors = window.moesimErrors || []).push('chart failed: ' + String(e));
      done();
    });
  },
};
