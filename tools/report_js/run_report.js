// A run's report.html (tools/report_html.h): summary tables, TTFT/TPOT CDFs and, per pool, the
// per-layer breakdown with exposed communication, expert load, rank load over time and links.
(function () {
  const d = moesim.data;
  const PHASE_LABELS = {
    attention: 'attention', dense_mlp: 'dense MLP', shared_expert: 'shared expert', router: 'router',
    dispatch: 'dispatch', expert_gemm: 'expert GEMM', combine: 'combine',
  };

  const summary = moesim.section('Summary', 'Scenario ' + d.scenario + '.');
  moesim.table(summary, ['metric', 'value'], d.facts);
  moesim.table(summary, ['latency', 'mean ms', 'p50 ms', 'p90 ms', 'p99 ms'], d.latency);

  const latency = moesim.section('Latency distributions',
    'Empirical CDFs over the completed requests; the dotted line is the p90 SLO target, if any.');
  const cdfRow = moesim.row(latency);
  const cdfChart = (id, title, cdf, slo) => {
    const traces = [{ x: cdf.x, y: cdf.y, type: 'scatter', mode: 'lines', name: title, line: { shape: 'hv' },
      hovertemplate: '%{x} ms: %{y:.3f} of requests<extra></extra>' }];
    const shapes = slo > 0 ? [{ type: 'line', x0: slo, x1: slo, y0: 0, y1: 1, line: { dash: 'dot', color: '#cf222e' } }] : [];
    moesim.chart(cdfRow, id, traces, {
      title: title + ' CDF', xaxis: { title: title + ' (ms)' }, yaxis: { title: 'fraction of requests', range: [0, 1.02] },
      shapes: shapes, showlegend: false,
    });
  };
  cdfChart('chart-ttft-cdf', 'TTFT', d.ttft_cdf_ms, d.slo_ms.ttft_p90);
  cdfChart('chart-tpot-cdf', 'TPOT', d.tpot_cdf_ms, d.slo_ms.tpot_p90);

  for (const pool of d.pools) {
    const role = pool.role;
    const sec = moesim.section(role + ' pool',
      pool.instances + ' instance(s) of ' + pool.ranks_per_instance + ' ranks, ' + pool.steps + ' steps, mean step ' +
      moesim.text(pool.mean_step_ms) + ' ms.');

    const L = pool.layers;
    const traces = L.phases.map((phase, i) => ({
      x: L.layer, y: L.phase_us[i], type: 'bar', name: PHASE_LABELS[phase] || phase,
      hovertemplate: 'layer %{x}: %{y} us<extra>' + (PHASE_LABELS[phase] || phase) + '</extra>',
    }));
    traces.push({ x: L.layer, y: L.wall_us, type: 'scatter', mode: 'lines+markers', name: 'layer wall time',
      line: { color: '#24292f' }, marker: { size: 4 }, hovertemplate: 'layer %{x}: wall %{y} us<extra></extra>' });
    traces.push({ x: L.layer, y: L.exposed_comm_us, type: 'scatter', mode: 'lines+markers', name: 'exposed communication',
      line: { color: '#cf222e', dash: 'dot' }, marker: { size: 4 },
      hovertemplate: 'layer %{x}: exposed %{y} us<extra></extra>' });
    moesim.chart(sec, 'chart-layers-' + role, traces, {
      title: 'Time per layer per step (each phase: its slowest rank, summed over micro-batches)',
      barmode: 'stack', xaxis: { title: 'layer' }, yaxis: { title: 'us per step' }, hovermode: 'x',
    }, true);

    if (pool.expert_load) {
      const E = pool.expert_load;
      const z = E.pairs.map((row) => {
        const mean = row.reduce((a, b) => a + b, 0) / row.length;
        return row.map((v) => (mean > 0 ? v / mean : 0));
      });
      const perStep = E.pairs.map((row) => row.map((v) => (E.steps > 0 ? v / E.steps : 0)));
      const experts = Array.from({ length: E.experts }, (_, i) => i);
      moesim.chart(sec, 'chart-expert-load-' + role, [{
        z: z, x: experts, y: E.layers, customdata: perStep, type: 'heatmap', colorscale: 'YlOrRd',
        colorbar: { title: 'load / mean' },
        hovertemplate: 'layer %{y}, expert %{x}<br>%{customdata:.1f} pairs per step<br>%{z:.2f} x the layer mean<extra></extra>',
      }], {
        title: 'Expert load (token-expert pairs received, relative to the layer mean)',
        xaxis: { title: 'expert' }, yaxis: { title: 'MoE layer' },
      }, true);
    }

    if (pool.rank_load) {
      const R = pool.rank_load;
      const ranks = Array.from({ length: R.pairs_per_step.length }, (_, i) => i);
      moesim.chart(sec, 'chart-rank-load-' + role, [{
        z: R.pairs_per_step, x: R.start_ms, y: ranks, customdata: R.steps, type: 'heatmap', colorscale: 'Viridis',
        colorbar: { title: 'pairs/step' }, hoverongaps: false,
        hovertemplate: 'rank %{y}, from %{x} ms<br>%{z} pairs received per step<br>%{customdata} steps<extra></extra>',
      }], {
        title: 'Rank load over time (pairs received per step, all MoE layers; ' + moesim.text(R.bucket_ms) + ' ms buckets by step start)',
        xaxis: { title: 'simulated time (ms)' },
        yaxis: { title: R.pairs_per_step.length > R.ranks_per_instance ? 'rank (instance-major)' : 'rank' },
      });
    }

    if (pool.power) {
      const P = pool.power;
      const idle = P.t_s.map(() => d.idle_w);
      moesim.chart(sec, 'chart-power-' + role, [
        { x: P.t_s, y: P.busy_w, type: 'scatter', mode: 'lines', name: 'in steps', connectgaps: false,
          hovertemplate: '%{x:.2f} s: %{y:.0f} W per GPU while stepping<extra></extra>' },
        { x: P.t_s, y: idle, type: 'scatter', mode: 'lines', name: 'idle', line: { dash: 'dot' },
          hovertemplate: 'idle %{y:.0f} W<extra></extra>' },
        { x: P.t_s, y: P.busy_share.map((v) => 100 * v), type: 'scatter', mode: 'lines', name: 'time in steps (%)',
          yaxis: 'y2', line: { color: '#8c959f' }, hovertemplate: '%{x:.2f} s: %{y:.0f} % of the time in steps<extra></extra>' },
      ], {
        title: 'Board power per GPU over time (docs/energy.md)',
        xaxis: { title: 'simulated time (s)' }, yaxis: { title: 'W per GPU', rangemode: 'tozero' },
        yaxis2: { title: 'time in steps (%)', overlaying: 'y', side: 'right', range: [0, 105] },
      });
    }

    if (pool.prefix_caches) {
      const C = pool.prefix_caches;
      const inst = C.hit_rate.map((_, i) => i);
      moesim.chart(sec, 'chart-prefix-cache-' + role, [
        { x: inst, y: C.hit_rate.map((v) => 100 * v), type: 'bar', name: 'hit rate',
          customdata: inst.map((i) => [C.hit_tokens[i], C.prompt_tokens[i]]),
          hovertemplate: 'instance %{x}: %{y:.1f} % of prompt tokens hit<br>%{customdata[0]} of %{customdata[1]}<extra></extra>' },
        { x: inst, y: C.evicted_blocks, type: 'scatter', mode: 'markers', name: 'blocks evicted', yaxis: 'y2',
          hovertemplate: 'instance %{x}: %{y} blocks evicted<extra></extra>' },
      ], {
        title: 'Prefix cache per instance (docs/serving.md, "Prefix caching")',
        xaxis: { title: 'instance' }, yaxis: { title: 'prompt tokens hit (%)', range: [0, 100] },
        yaxis2: { title: 'blocks evicted', overlaying: 'y', side: 'right', rangemode: 'tozero' },
      });
    }

    if (pool.links) {
      const K = pool.links;
      const linkRow = moesim.row(sec);
      moesim.chart(linkRow, 'chart-link-classes-' + role, [
        { x: K.classes.map((c) => c.class), y: K.classes.map((c) => 100 * c.mean_utilisation), type: 'bar',
          name: 'mean', customdata: K.classes.map((c) => [c.links, c.gigabytes]),
          hovertemplate: '%{x}: mean %{y:.2f} %<br>%{customdata[0]} links, %{customdata[1]} GB<extra></extra>' },
        { x: K.classes.map((c) => c.class), y: K.classes.map((c) => 100 * c.max_utilisation), type: 'bar',
          name: 'busiest link', hovertemplate: '%{x}: busiest %{y:.2f} %<extra></extra>' },
      ], {
        title: 'Link utilisation by class (over ' + moesim.text(K.seconds) + ' s)', barmode: 'group',
        yaxis: { title: 'utilisation (%)' },
      });
      const busiest = K.busiest.slice().reverse();
      moesim.chart(linkRow, 'chart-busiest-links-' + role, [{
        y: busiest.map((l) => l.name), x: busiest.map((l) => 100 * l.utilisation), type: 'bar', orientation: 'h',
        customdata: busiest.map((l) => l.gigabytes),
        hovertemplate: '%{y}<br>%{x:.2f} % utilised, %{customdata} GB<extra></extra>',
      }], {
        title: 'Busiest links', xaxis: { title: 'utilisation (%)' }, yaxis: { automargin: true },
        margin: { t: 40, r: 20, b: 50, l: 20 },
      });
    }
  }
  moesim.finish();
})();
