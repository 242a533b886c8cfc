// A sweep's report.html (tools/report_html.h): the Pareto frontiers of output tokens/s per GPU
// against p90 TPOT and p90 TTFT, every point with its parameters on hover, the best point.
(function () {
  const d = moesim.data;
  const metric = (name) => d.metrics.findIndex((m) => m.name === name);
  const TPS = metric('output_tokens_per_gpu_s');
  const byIndex = new Map(d.points.map((p) => [p.index, p]));
  const describe = (p) => 'point ' + p.index + '<br>' + d.params.map((k, i) => k + ' = ' + p.params[i]).join('<br>');

  const objective = d.objective;
  const bounds = objective.subject_to.map((c) => c.metric + (c.unit ? ' <= ' + c.bound + ' ' + c.unit : ' >= ' + c.bound));
  const summary = moesim.section('Sweep', 'Sweep ' + d.sweep + ' over base ' + d.base + ': ' + d.points.length +
    ' points ran, ' + d.skipped.length + ' skipped. Objective: ' + (objective.maximize ? 'maximize ' : 'minimize ') +
    objective.metric + (bounds.length ? ' subject to ' + bounds.join(', ') : '') + '.');

  const best = d.best === null ? null : byIndex.get(d.best);
  if (best) {
    moesim.table(summary, ['best point', 'value'], [['index', best.index]]
      .concat(d.params.map((k, i) => [k, best.params[i]]))
      .concat(d.metrics.map((m, i) => [m.name + (m.latency ? ' (ms)' : ''), best.metrics[i]])));
  } else {
    summary.appendChild(moesim.element('p', { class: 'note' }, 'No point meets the constraints.'));
  }

  const charts = moesim.row(moesim.section('Pareto frontiers',
    'Each marker is a point; the line joins the points no other point beats on both axes; the star is the best point under the objective. Hover for the parameters.'));
  const frontier = (id, latencyName, label, slo) => {
    const L = metric(latencyName);
    const meets = d.points.filter((p) => p.meets), misses = d.points.filter((p) => !p.meets);
    const trace = (points, name, marker) => ({
      x: points.map((p) => p.metrics[L]), y: points.map((p) => p.metrics[TPS]), text: points.map(describe),
      type: 'scatter', mode: 'markers', name: name, marker: marker,
      hovertemplate: '%{text}<br>' + label + ' %{x:.2f} ms<br>%{y:.1f} tok/s/GPU<extra></extra>',
    });
    const front = d.fronts[latencyName].map((i) => byIndex.get(i));
    const traces = [
      trace(meets, 'meets the constraints', { color: '#0969da', size: 8 }),
      trace(misses, 'misses a constraint', { color: '#8c959f', size: 7, symbol: 'circle-open' }),
      Object.assign(trace(front, 'Pareto frontier', { color: '#1a7f37', size: 9 }), { mode: 'lines+markers', line: { shape: 'hv' } }),
    ];
    if (best) traces.push(trace([best], 'best point', { color: '#cf222e', size: 16, symbol: 'star' }));
    const shapes = slo > 0 ? [{ type: 'line', x0: slo, x1: slo, yref: 'paper', y0: 0, y1: 1, line: { dash: 'dot', color: '#cf222e' } }] : [];
    moesim.chart(charts, id, traces, {
      title: 'Output tokens/s per GPU vs ' + label, xaxis: { title: label + ' (ms)' },
      yaxis: { title: 'output tokens/s per GPU' }, shapes: shapes, legend: { orientation: 'h', y: -0.2 },
    }, true);
  };
  const bound = (name) => {
    const c = objective.subject_to.find((b) => b.metric === name);
    return c ? c.bound : 0;
  };
  frontier('chart-pareto-tpot', 'tpot_p90', 'p90 TPOT', bound('tpot_p90'));
  frontier('chart-pareto-ttft', 'ttft_p90', 'p90 TTFT', bound('ttft_p90'));

  const all = moesim.section('Points', 'Every point that ran, in index order.');
  const shown = ['output_tokens_per_gpu_s', 'tpot_p90', 'ttft_p90', 'slo_attainment'].map(metric);
  moesim.table(all, ['index'].concat(d.params, shown.map((i) => d.metrics[i].name + (d.metrics[i].latency ? ' (ms)' : '')), ['meets']),
    d.points.map((p) => [p.index].concat(p.params, shown.map((i) => p.metrics[i]), [p.meets ? 'yes' : 'no'])));
  if (d.skipped.length) {
    const sk = moesim.section('Skipped points', 'Combinations that are not valid deployments, with the reason.');
    moesim.table(sk, ['index', 'status'].concat(d.params, ['reason']),
      d.skipped.map((p) => [p.index, p.status].concat(p.params, [p.reason])));
  }
  moesim.finish();
})();
