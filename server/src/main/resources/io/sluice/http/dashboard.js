/*
 * sluice's dashboard. Design note:
 * - One source: GET /status (the document `./sluice status` reads): the health snapshot and, per sample (one a
 *   second on the server), the value of every sluice_* series of /metrics under its exact Prometheus id. The page
 *   asks for the whole history once, then only for samples after the last one it has (?since=), and keeps the
 *   last 10 minutes. Polls never overlap: the next is scheduled when one ends.
 * - Counters are totals: a chart shows the rate between consecutive samples; a total lower than the one before is
 *   a restart, and counts from 0 (as Prometheus's rate() does).
 * - Credentials: /status answers 401 when authentication is on; the page then asks for a user and password, keeps
 *   the Basic credentials in sessionStorage (this tab only, never in the URL) and sends them as an Authorization
 *   header, with X-Ajax-Browser-Auth so the browser shows no login dialog of its own. A later 401 (the password
 *   changed) asks again.
 * - Charts with a `when` are shown only while it holds: the sources' charts only on a server that applies
 *   application topics (sources.kafka), whose series exist only there.
 * - window.sluiceDashboard says what the page shows (state, points per chart, templates, the sources' line): for
 *   tests and the curious.
 */
(() => {
  'use strict';

  const KEEP_MS = 10 * 60 * 1000;
  const KEEP_SAMPLES = 600;
  const POLL_MS = 1000;
  const FETCH_TIMEOUT_MS = 10000;
  const TABLE_WINDOW_MS = 10000;
  const AUTH_KEY = 'sluice.authorization';
  const PLOT_HEIGHT = 170;
  const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
    '#7f7f7f', '#bcbd22'];
  const STATUS_COLOURS = { '2xx': '#2ca02c', '4xx': '#ff7f0e', '503': '#d62728', '5xx': '#8c564b' };

  const $ = (id) => document.getElementById(id);

  /** What the page shows, for tests and the curious. */
  const exposed = {
    ready: false, state: 'starting', polls: 0, samples: 0, charts: {}, templates: [], problem: null,
    sources: null,
  };
  window.sluiceDashboard = exposed;

  // ---- the history: t[] (epoch ms) and, per series id, its values aligned with t ----

  const store = { t: [], series: new Map(), health: null };

  const SERIES_ID = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?$/;
  const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

  /** A series id as written in /metrics, e.g. sluice_requests_total{mode="sync",status="200"}: name and labels. */
  function parseId(id) {
    const m = SERIES_ID.exec(id);
    if (!m) {
      return null;
    }
    const labels = {};
    if (m[2]) {
      for (const l of m[2].matchAll(LABEL)) {
        labels[l[1]] = l[2].replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      }
    }
    return { name: m[1], labels };
  }

  /** A number, or null (missing, NaN and the infinities, which JSON carries as strings). */
  function num(v) {
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  }

  /** Appends a /status document's samples (those after the last one held), then drops what is too old. */
  function merge(doc) {
    const ts = Array.isArray(doc.t) ? doc.t : [];
    const last = store.t.length ? store.t[store.t.length - 1] : -Infinity;
    let first = 0;
    while (first < ts.length && ts[first] <= last) {
      first++; // already held (a poll that raced another)
    }
    const n = ts.length - first;
    if (n <= 0) {
      return 0;
    }
    const held = store.t.length;
    const incoming = doc.series || {};
    for (const id of Object.keys(incoming)) {
      if (!store.series.has(id)) {
        const parsed = parseId(id);
        if (parsed) {
          store.series.set(id, { id, name: parsed.name, labels: parsed.labels, values: new Array(held).fill(null) });
        }
      }
    }
    for (let i = first; i < ts.length; i++) {
      store.t.push(ts[i]);
    }
    for (const s of store.series.values()) {
      const vs = incoming[s.id];
      for (let i = first; i < ts.length; i++) {
        s.values.push(vs ? num(vs[i]) : null);
      }
    }
    trim();
    return n;
  }

  function trim() {
    let drop = 0;
    const newest = store.t[store.t.length - 1];
    while (drop < store.t.length && (store.t.length - drop > KEEP_SAMPLES || newest - store.t[drop] > KEEP_MS)) {
      drop++;
    }
    if (drop === 0) {
      return;
    }
    store.t.splice(0, drop);
    for (const [id, s] of store.series) {
      s.values.splice(0, drop);
      if (s.values.every((v) => v === null)) {
        store.series.delete(id);
      }
    }
  }

  /** The series named {@code name} whose labels include {@code match}. */
  function find(name, match = {}) {
    const out = [];
    for (const s of store.series.values()) {
      if (s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)) {
        out.push(s);
      }
    }
    return out;
  }

  /** Distinct values of label {@code label} among the series {@code name}, sorted. */
  function labelValues(name, label) {
    const vs = new Set();
    for (const s of find(name)) {
      if (s.labels[label] !== undefined) {
        vs.add(s.labels[label]);
      }
    }
    return [...vs].sort();
  }

  /** Per sample, a counter's rate per second since the sample before; a decrease is a restart (counts from 0). */
  function rates(values) {
    const out = new Array(values.length).fill(null);
    for (let i = 1; i < values.length; i++) {
      const v = values[i];
      if (v === null) {
        continue;
      }
      const dt = (store.t[i] - store.t[i - 1]) / 1000;
      if (dt <= 0) {
        continue;
      }
      const before = values[i - 1];
      const increase = before === null || v < before ? v : v - before; // born or restarted: from 0
      out[i] = increase / dt;
    }
    return out;
  }

  /** Per sample, the summed rates of several counters; 0 where none exists yet (nothing counted is 0/s). */
  function summedRates(seriesList) {
    const out = new Array(store.t.length).fill(null);
    for (let i = 1; i < out.length; i++) {
      out[i] = 0;
    }
    for (const s of seriesList) {
      rates(s.values).forEach((r, i) => {
        if (r !== null) {
          out[i] += r;
        }
      });
    }
    return out;
  }

  /** The values of one gauge (the first series that matches), scaled; nulls where it did not exist. */
  function gauge(name, match = {}, scale = 1) {
    const s = find(name, match)[0];
    return s ? s.values.map((v) => (v === null ? null : v * scale)) : new Array(store.t.length).fill(null);
  }

  /** Per sample, the sum of several gauges; null where none has a number (a partition applied elsewhere: NaN). */
  function summedGauges(seriesList) {
    return combinedGauges(seriesList, (a, b) => a + b);
  }

  /** Per sample, the largest of several gauges; null where none has a number. */
  function maxGauges(seriesList) {
    return combinedGauges(seriesList, Math.max);
  }

  function combinedGauges(seriesList, combine) {
    const out = new Array(store.t.length).fill(null);
    for (const s of seriesList) {
      s.values.forEach((v, i) => {
        if (v !== null) {
          out[i] = out[i] === null ? v : combine(out[i], v);
        }
      });
    }
    return out;
  }

  /** Whether this server applies application topics (sources.kafka): only then do sluice_source_* series exist. */
  function hasGroups() {
    for (const s of store.series.values()) {
      if (s.name === 'sluice_groups_total') {
        return true;
      }
    }
    return false;
  }

  function hasSources() {
    for (const s of store.series.values()) {
      if (s.name.startsWith('sluice_source_')) {
        return true;
      }
    }
    return false;
  }

  /** The outcomes of sluice_source_records_total, as the sources' records chart draws them. */
  const SOURCE_OUTCOMES = [['applied', '#2ca02c'], ['dead_lettered', '#d62728'], ['skipped', '#ff7f0e'],
    ['held', '#9467bd']];

  function lastOf(values) {
    for (let i = values.length - 1; i >= 0; i--) {
      if (values[i] !== null) {
        return values[i];
      }
    }
    return null;
  }

  /** The status-class of an HTTP status, as the answers chart groups them. */
  function statusClass(code) {
    if (code === '503') {
      return '503';
    }
    return code.charAt(0) + 'xx';
  }

  // ---- the charts: each a function of the store giving its lines ----

  const CHARTS = [
    {
      id: 'rows', title: 'Rows written / s, by mode', unit: '/s',
      lines: () => labelValues('sluice_rows_total', 'mode').map((mode) =>
        ({ label: mode, values: summedRates(find('sluice_rows_total', { mode })) })),
    },
    {
      id: 'answers', title: 'Answers / s, by status', unit: '/s',
      lines: () => ['2xx', '4xx', '503', '5xx'].map((cls) => ({
        label: cls, colour: STATUS_COLOURS[cls],
        values: summedRates(find('sluice_requests_total').filter((s) => statusClass(s.labels.status || '') === cls)),
      })),
    },
    {
      id: 'latency', title: 'Request latency (ms), p50 and p99 by mode', unit: 'ms',
      note: 'The server\'s quantiles over its last ~20 s (sluice_request_latency_seconds).',
      lines: () => labelValues('sluice_request_latency_seconds', 'mode').flatMap((mode) => [
        { label: mode + ' p50', values: gauge('sluice_request_latency_seconds', { mode, quantile: '0.5' }, 1000) },
        { label: mode + ' p99', dash: true,
          values: gauge('sluice_request_latency_seconds', { mode, quantile: '0.99' }, 1000) },
      ]),
    },
    {
      id: 'batch', title: 'Rows per transaction', unit: 'rows',
      note: 'Batches committed: p50 and p99 (sluice_batch_rows), and the mean of each second (_sum / _count).',
      lines: () => [
        { label: 'p50', values: gauge('sluice_batch_rows', { quantile: '0.5' }) },
        { label: 'p99', dash: true, values: gauge('sluice_batch_rows', { quantile: '0.99' }) },
        { label: 'mean', values: ratioOfRates('sluice_batch_rows_sum', 'sluice_batch_rows_count') },
      ],
    },
    {
      id: 'commit', title: 'Commit time (ms) per transaction', unit: 'ms',
      lines: () => [
        { label: 'p50', values: gauge('sluice_commit_seconds', { quantile: '0.5' }, 1000) },
        { label: 'p99', dash: true, values: gauge('sluice_commit_seconds', { quantile: '0.99' }, 1000) },
      ],
    },
    {
      id: 'pending', title: 'Pending rows, and admission refusals (503/s)', unit: 'rows', unit2: '/s',
      note: 'Rows admitted and not yet committed; 503s are writes refused while sluice was full or stopping.',
      lines: () => [
        { label: 'pending rows', values: gauge('sluice_pending_rows') },
        { label: '503/s', scale: 'y2', colour: STATUS_COLOURS['503'],
          values: summedRates(find('sluice_requests_total', { status: '503' })) },
      ],
    },
    {
      id: 'journal', title: 'Journal lag (rows) and dead letters', unit: 'rows', unit2: 'letters',
      note: 'Async writes journaled and not yet applied; writes that failed on apply.',
      lines: () => [
        { label: 'lag rows', values: gauge('sluice_journal_lag_rows') },
        { label: 'dead letters', scale: 'y2', colour: '#d62728', values: gauge('sluice_dead_letters') },
      ],
    },
    {
      id: 'retries', title: 'Transient retries / s, by code', unit: '/s',
      note: 'Deadlocks and other transient errors, retried by sluice (sluice_transient_retries_total).',
      lines: () => [{ label: 'all', colour: '#7f7f7f', values: summedRates(find('sluice_transient_retries_total')) }]
        .concat(labelValues('sluice_transient_retries_total', 'code').map((code) => ({
          label: code.substring(code.lastIndexOf('.') + 1),
          values: summedRates(find('sluice_transient_retries_total', { code })),
        }))),
    },
    {
      id: 'transactions', title: 'Open explicit transactions', unit: '',
      lines: () => [{ label: 'open', values: gauge('sluice_transactions_open') }],
    },
    {
      id: 'bolt', title: 'Bolt: messages, failures, transactions / s; connections', unit: '/s', unit2: 'open',
      note: 'Drivers on sluice\'s Bolt listener: messages received, FAILURE answers and explicit transactions begun,'
        + ' per second (left); connections open (right). Its auto-commit writes are in the charts above too.',
      lines: () => [
        { label: 'messages/s', values: summedRates(find('sluice_bolt_messages_total')) },
        { label: 'failures/s', colour: '#d62728', values: summedRates(find('sluice_bolt_failures_total')) },
        { label: 'transactions/s', colour: '#2ca02c',
          values: summedRates(find('sluice_bolt_transactions_total', { event: 'begin' })) },
        { label: 'connections', scale: 'y2', colour: '#7f7f7f', values: gauge('sluice_bolt_connections') },
      ],
    },
    {
      id: 'groups', title: 'Grouped managed transactions: groups / s; members per group', unit: '/s',
      unit2: 'members', when: hasGroups,
      note: 'transactions.group: the drivers\' managed transactions sharing commits. Groups committed and aborted'
        + ' (every member told to retry), and members taken out of a group (a rollback, a failure, a lost client;'
        + ' the others replayed), per second (left); members per committed group (right).',
      lines: () => {
        const sum = summedRates(find('sluice_group_members_sum', { outcome: 'committed' }));
        const count = summedRates(find('sluice_group_members_count', { outcome: 'committed' }));
        return [
          { label: 'committed/s', colour: '#2ca02c', values: summedRates(find('sluice_groups_total', { outcome: 'committed' })) },
          { label: 'aborted/s', colour: '#d62728', values: summedRates(find('sluice_groups_total', { outcome: 'aborted' })) },
          { label: 'taken out/s', colour: '#ff7f0e', values: summedRates(find('sluice_group_evictions_total')) },
          { label: 'members', scale: 'y2', colour: '#7f7f7f',
            values: sum.map((x, i) => (x === null || !count[i] ? null : x / count[i])) },
        ];
      },
    },
    {
      id: 'sources-lag', title: 'Sources: lag, records and seconds', unit: 'records', unit2: 's', when: hasSources,
      note: 'Application topics (sources.kafka): records not yet applied, summed over the partitions this instance'
        + ' applies (left); the age of the oldest of them, at the worst partition (right).',
      lines: () => [
        { label: 'lag records', values: summedGauges(find('sluice_source_lag_records')) },
        { label: 'oldest (s)', scale: 'y2', colour: '#ff7f0e', values: maxGauges(find('sluice_source_lag_seconds')) },
      ],
    },
    {
      id: 'sources-records', title: 'Sources: records / s, by outcome', unit: '/s', when: hasSources,
      note: 'Records applied, dead-lettered and skipped (on_error), and holds: a partition stopped at a record'
        + ' (the header says which, and why).',
      lines: () => SOURCE_OUTCOMES.map(([outcome, colour]) => ({
        label: outcome.replace('_', '-'), colour, values: summedRates(find('sluice_source_records_total', { outcome })),
      })),
    },
  ];

  /** Per sample, Δa / Δb of two counters (e.g. rows per batch from _sum and _count); null where Δb is 0. */
  function ratioOfRates(a, b) {
    const ra = rates(gauge(a));
    const rb = rates(gauge(b));
    return ra.map((x, i) => (x === null || !rb[i] ? null : x / rb[i]));
  }

  /** Local wall-clock time of epoch seconds {@code x}: HH:MM, or HH:MM:SS. */
  function clock(x, seconds) {
    const d = new Date(x * 1000);
    const two = (n) => String(n).padStart(2, '0');
    return two(d.getHours()) + ':' + two(d.getMinutes()) + (seconds ? ':' + two(d.getSeconds()) : '');
  }

  function format(v) {
    if (v === null || v === undefined || Number.isNaN(v)) {
      return '–';
    }
    const a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(1) + 'G';
    if (a >= 1e6) return (v / 1e6).toFixed(1) + 'M';
    if (a >= 1e4) return (v / 1e3).toFixed(0) + 'k';
    if (a >= 1e3) return (v / 1e3).toFixed(1) + 'k';
    if (a >= 100 || a === 0) return v.toFixed(0);
    return String(Number(v.toFixed(a >= 10 ? 1 : 2))); // 3, 3.06, 12.5
  }

  const plots = new Map(); // chart id -> { def, el, plot, signature, width }

  function buildCards() {
    const box = $('charts');
    for (const def of CHARTS) {
      const card = document.createElement('section');
      card.className = 'card chart';
      card.id = 'chart-' + def.id;
      const h = document.createElement('h2');
      h.textContent = def.title;
      card.appendChild(h);
      const el = document.createElement('div');
      el.className = 'plot';
      card.appendChild(el);
      if (def.note) {
        const p = document.createElement('p');
        p.className = 'note';
        p.textContent = def.note;
        card.appendChild(p);
      }
      card.hidden = Boolean(def.when); // until its series exist
      box.appendChild(card);
      plots.set(def.id, { def, card, el, plot: null, signature: null, width: 0 });
    }
    const resized = new ResizeObserver(() => requestAnimationFrame(resizeAll));
    resized.observe(box);
  }

  function resizeAll() {
    for (const p of plots.values()) {
      const width = Math.floor(p.el.clientWidth);
      if (p.plot && width > 0 && width !== p.width) {
        p.width = width;
        p.plot.setSize({ width, height: PLOT_HEIGHT });
      }
    }
  }

  function options(def, lines, width) {
    const zeroBased = (u, min, max) => [Math.min(0, min ?? 0), max === null || max <= 0 ? 1 : max * 1.1];
    const axis = { stroke: '#5f6b76', grid: { stroke: '#eef0f2', width: 1 }, ticks: { stroke: '#e3e7eb', width: 1 } };
    // the legend shows the value under the cursor, else the newest one
    const series = [{ label: 'time', value: (u, v) => (v === null ? 'now' : clock(v, true)) }];
    lines.forEach((l, i) => series.push({
      label: l.label,
      scale: l.scale || 'y',
      stroke: l.colour || COLOURS[i % COLOURS.length],
      width: 1.5,
      dash: l.dash ? [5, 3] : undefined,
      value: (u, v, si, idx) => format(idx === null ? lastOf(u.data[si]) : v),
      spanGaps: false,
      points: { show: false },
    }));
    const axes = [
      Object.assign({}, axis, { space: 70, values: (u, splits, ai, space, incr) => splits.map((x) => clock(x, incr < 60)) }),
      Object.assign({}, axis, { scale: 'y', size: 48, values: (u, splits) => splits.map(format) }),
    ];
    const scales = { x: { time: true }, y: { range: zeroBased } };
    if (lines.some((l) => l.scale === 'y2')) {
      scales.y2 = { range: zeroBased };
      axes.push(Object.assign({}, axis, { scale: 'y2', side: 1, size: 44, grid: { show: false },
        values: (u, splits) => splits.map(format) }));
    }
    return {
      width, height: PLOT_HEIGHT, series, axes, scales,
      legend: { show: true, live: true },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
    };
  }

  function renderCharts() {
    const xs = store.t.map((t) => t / 1000);
    for (const p of plots.values()) {
      p.card.hidden = Boolean(p.def.when) && !p.def.when();
      if (p.card.hidden) {
        if (p.plot) {
          p.plot.destroy();
          p.plot = null;
        }
        delete exposed.charts[p.def.id];
        continue;
      }
      const lines = p.def.lines();
      const data = [xs].concat(lines.map((l) => l.values));
      const signature = lines.map((l) => l.label + '|' + (l.scale || 'y')).join(',');
      const width = Math.max(200, Math.floor(p.el.clientWidth));
      if (p.plot && signature !== p.signature) {
        p.plot.destroy();
        p.plot = null;
      }
      if (!p.plot) {
        p.plot = new uPlot(options(p.def, lines, width), data, p.el);
        p.signature = signature;
        p.width = width;
      } else {
        p.plot.setData(data);
      }
      let points = 0;
      let max = null;
      for (const l of lines) {
        for (const v of l.values) {
          if (v !== null) {
            points++;
            max = max === null ? v : Math.max(max, v);
          }
        }
      }
      exposed.charts[p.def.id] = { series: lines.map((l) => l.label), points, max, samples: xs.length };
    }
  }

  // ---- the header and the template table ----

  function renderHealth() {
    const h = store.health || {};
    const status = String(h.status || '?');
    const badge = $('health');
    badge.textContent = status;
    badge.className = 'badge ' + status.toLowerCase();
    const sinkUp = lastOf(gauge('sluice_sink_up'));
    const sink = $('fact-sink');
    sink.textContent = (h.sink || '?') + (sinkUp === null ? '' : sinkUp === 1 ? ' (answering)' : ' (NOT answering)');
    sink.className = sinkUp === 0 ? 'bad' : '';
    $('fact-journal').textContent = (h.journal || '?') + (h.kafka_topic ? ' topic ' + h.kafka_topic : '')
      + (h.kafka_bootstrap ? ' @ ' + h.kafka_bootstrap : '');
    $('fact-appliers').textContent = h.appliers === undefined ? '–' : String(h.appliers);
    const templates = Array.isArray(h.templates) ? h.templates : [];
    $('fact-templates').textContent = templates.length ? templates.length + ' (' + templates.join(', ') + ')' : 'none';
    renderSources(h.sources);
    const cpu = lastOf(gauge('process_cpu_usage'));
    $('fact-cpu').textContent = cpu === null ? '–' : (cpu * 100).toFixed(0) + '%';
    const t = store.t[store.t.length - 1];
    $('fact-time').textContent = t ? clock(t / 1000, true) : '–';
  }

  /**
   * The sources' line, shown while this server applies application topics: the lag of the partitions it applies
   * (newest sample: records summed, the oldest record's age at the worst partition), and from /health its group,
   * how many partitions it applies and each paused one with its reason (a hold: on_error stop, or the dead-letter
   * bound), and each Debezium stream (sources.kafka.debezium with transactions): its commit, what waits, copies
   * dropped.
   */
  function renderSources(health) {
    const sources = health && typeof health === 'object' ? health : null;
    const box = $('fact-sources-box');
    box.hidden = !sources && !hasSources();
    if (box.hidden) {
      exposed.sources = null;
      return;
    }
    const last = store.t.length - 1;
    const at = (list) => list.map((s) => s.values[last]).filter((v) => v !== null && v !== undefined);
    const records = at(find('sluice_source_lag_records'));
    const seconds = at(find('sluice_source_lag_seconds'));
    const partitions = sources && Array.isArray(sources.partitions) ? sources.partitions : [];
    const paused = partitions.filter((p) => p.state === 'paused');
    const parts = [];
    if (sources) {
      const n = partitions.length;
      parts.push('group ' + sources.group + ', ' + n + ' partition' + (n === 1 ? '' : 's') + ' here');
    }
    parts.push(records.length ? 'lag ' + format(records.reduce((a, b) => a + b, 0)) + ' records'
      + (seconds.length ? ', oldest ' + format(Math.max(...seconds)) + ' s' : '') : 'no partition applied here');
    const reasons = paused.map((p) => p.topic + '[' + p.partition + '] ' + (p.reason || 'paused'));
    if (paused.length) {
      parts.push(paused.length + ' paused: ' + reasons.join('; '));
    }
    // Debezium streams applying whole source transactions: where each stands, what waits, the copies dropped
    const streams = sources && Array.isArray(sources.debezium) ? sources.debezium : [];
    for (const d of streams) {
      parts.push('debezium ' + d.prefix + ': ' + (d.running ? 'at commit ' + d.last_commit : 'STOPPED') + ', '
        + format(d.waiting || 0) + ' waiting, oldest unapplied ' + format(d.oldest_unapplied_seconds || 0) + ' s, '
        + format(d.duplicates_dropped || 0) + ' copies dropped');
    }
    const stopped = streams.some((d) => !d.running);
    const dd = $('fact-sources');
    dd.textContent = parts.join(' · ');
    dd.className = paused.length || stopped ? 'bad' : '';
    exposed.sources = { text: dd.textContent, paused: reasons };
  }

  function renderTemplates() {
    const to = store.t.length - 1;
    let from = to;
    while (from > 0 && store.t[to] - store.t[from - 1] <= TABLE_WINDOW_MS) {
      from--;
    }
    const seconds = to > from ? (store.t[to] - store.t[from]) / 1000 : 0;
    const increase = (s) => {
      const end = s.values[to];
      const start = s.values[from];
      if (end === null || end === undefined || seconds <= 0) {
        return 0;
      }
      return Math.max(0, start === null ? end : end < start ? end : end - start) / seconds;
    };
    const rows = new Map();
    const row = (name) => {
      if (!rows.has(name)) {
        rows.set(name, { name, requests: 0, rows: 0, errors: 0, p50: null, p99: null });
      }
      return rows.get(name);
    };
    const configured = Array.isArray((store.health || {}).templates) ? store.health.templates : [];
    configured.forEach(row);
    for (const s of store.series.values()) {
      const name = s.labels.template;
      if (name === undefined) {
        continue;
      }
      const r = row(name);
      if (s.name === 'sluice_template_requests_total') {
        const rate = increase(s);
        r.requests += rate;
        if (!String(s.labels.status || '').startsWith('2')) {
          r.errors += rate;
        }
      } else if (s.name === 'sluice_template_rows_total') {
        r.rows += increase(s);
      } else if (s.name === 'sluice_template_latency_seconds') {
        const v = s.values[to];
        if (s.labels.quantile === '0.5') r.p50 = v === null ? null : v * 1000;
        if (s.labels.quantile === '0.99') r.p99 = v === null ? null : v * 1000;
      }
    }
    const order = (n) => (n.startsWith('(') ? 1 : 0);
    const sorted = [...rows.values()].sort((a, b) => order(a.name) - order(b.name) || a.name.localeCompare(b.name));
    const body = $('templates').tBodies[0];
    const fresh = document.createElement('tbody');
    for (const r of sorted) {
      const tr = document.createElement('tr');
      const cells = [r.name, format(r.requests), format(r.rows), format(r.errors), format(r.p50), format(r.p99)];
      cells.forEach((text, i) => {
        const td = document.createElement('td');
        td.textContent = text;
        if (i === 3 && r.errors > 0) {
          td.className = 'errors';
        }
        tr.appendChild(td);
      });
      fresh.appendChild(tr);
    }
    body.replaceWith(fresh);
    exposed.templates = sorted.map((r) => ({ name: r.name, requests: r.requests, rows: r.rows, errors: r.errors,
      p50: r.p50, p99: r.p99 }));
  }

  // ---- polling, credentials ----

  function show(state, problem) {
    exposed.state = state;
    exposed.problem = problem || null;
    $('login').hidden = state !== 'login';
    $('board').hidden = state === 'login' || store.t.length === 0;
    const p = $('problem');
    p.hidden = !problem || state === 'login';
    p.textContent = problem || '';
    if (state === 'unreachable') {
      $('health').textContent = 'UNREACHABLE';
      $('health').className = 'badge unreachable';
    }
  }

  function askForCredentials(message) {
    sessionStorage.removeItem(AUTH_KEY);
    $('login-error').textContent = message || '';
    show('login');
    const user = $('login-user');
    (user.value ? $('login-password') : user).focus();
  }

  /** Basic credentials: base64 of the UTF-8 bytes of user:password (btoa alone takes Latin-1 only). */
  function basic(user, password) {
    const bytes = new TextEncoder().encode(user + ':' + password);
    let binary = '';
    bytes.forEach((b) => { binary += String.fromCharCode(b); });
    return 'Basic ' + btoa(binary);
  }

  async function errorCode(response) {
    try {
      const body = await response.json();
      return (body.errors && body.errors[0] && body.errors[0].code) || '';
    } catch (e) {
      return '';
    }
  }

  let timer = null;

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  async function poll() {
    const started = performance.now();
    const headers = { 'Accept': 'application/json', 'X-Ajax-Browser-Auth': 'true' };
    const auth = sessionStorage.getItem(AUTH_KEY);
    if (auth) {
      headers['Authorization'] = auth;
    }
    const since = store.t.length ? '?since=' + store.t[store.t.length - 1] : '';
    const abort = new AbortController();
    const giveUp = setTimeout(() => abort.abort(), FETCH_TIMEOUT_MS);
    let response;
    try {
      response = await fetch('/status' + since, { headers, cache: 'no-store', signal: abort.signal });
    } catch (e) {
      clearTimeout(giveUp);
      show('unreachable', 'sluice does not answer (' + (e && e.name === 'AbortError' ? 'timed out' : 'no connection')
        + '); retrying every second.');
      schedule(POLL_MS);
      return;
    }
    clearTimeout(giveUp);
    exposed.polls++;
    if (response.status === 401) {
      askForCredentials(auth ? 'The user name or password was not accepted (or the password changed).' : '');
      return; // until the form is sent
    }
    if (response.status === 429) {
      askForCredentials('Too many failed attempts: wait a few seconds, then sign in again.');
      return;
    }
    if (!response.ok) {
      const code = await errorCode(response);
      if (code === 'Neo.ClientError.Security.CredentialsExpired') {
        askForCredentials('This user\'s password must be changed first (with cypher-shell or Neo4j Browser).');
        return;
      }
      show('problem', 'GET /status answered ' + response.status + (code ? ' ' + code : '') + '; retrying.');
      schedule(POLL_MS);
      return;
    }
    let doc;
    try {
      doc = await response.json();
    } catch (e) {
      show('problem', 'GET /status sent something that is not JSON; retrying.');
      schedule(POLL_MS);
      return;
    }
    store.health = doc.health || store.health;
    merge(doc);
    show('live');
    renderHealth();
    renderTemplates();
    renderCharts();
    exposed.samples = store.t.length;
    exposed.ready = store.t.length >= 2;
    schedule(Math.max(0, POLL_MS - (performance.now() - started)));
  }

  function start() {
    if (typeof uPlot !== 'function') {
      show('problem', 'The chart library did not load (/dashboard/uplot.js).');
      return;
    }
    buildCards();
    $('login-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const user = $('login-user').value;
      const password = $('login-password').value;
      $('login-password').value = '';
      sessionStorage.setItem(AUTH_KEY, basic(user, password));
      $('login-error').textContent = '';
      show('signing-in');
      schedule(0);
    });
    poll();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
