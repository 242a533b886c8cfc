"""The Python package (docs/python.md): scenarios load and change with the command line's checks,
runs return the summary and DataFrames (per-layer times included), several seeds run at once, a
run writes the command line's files, errors carry their position, threads run in parallel."""
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import moesim

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "scenarios" / "library"

SMALL = {
    "name": "py-small",
    "model": "tiny-moe",
    "hardware": "h100",
    "cluster": {"nodes": 1},
    "deployment": {"colocated": {"ranks": 8, "moe": {"ep": 8}}},
    "workload": {"requests": 40, "input_tokens": {"dist": "fixed", "value": 64},
                 "output_tokens": {"dist": "fixed", "value": 8}},
}


def test_run_a_library_scenario_returns_its_summary_and_tables():
    s = moesim.Scenario.load(LIBRARY / "dsv3-h800-32gpu.yaml")
    assert s.name == "dsv3-h800-32gpu"
    s.set("workload.requests", 200)
    r = moesim.run(s)
    assert r.summary["scenario"] == "dsv3-h800-32gpu"
    assert r.summary["throughput"]["output_tokens_per_gpu_s"] > 0
    assert len(r.requests) == 200
    assert r.requests.finish_ns.ge(0).all()
    assert (r.requests.ttft_s > 0).all()
    assert r.requests.id.dtype == "int64"  # numpy columns, not parsed text
    assert len(r.steps) > 0 and r.steps.duration_ns.gt(0).all()
    # The DataFrame agrees with the summary: p50 TTFT within one request's nearest rank.
    p50 = r.summary["latency"]["ttft"]["p50_s"]
    assert r.requests.ttft_s.min() <= p50 <= r.requests.ttft_s.max()


def test_a_dict_scenario_is_reproducible_from_its_seed():
    a = moesim.run(moesim.Scenario(SMALL), seed=5)
    b = moesim.run(SMALL, seed=5)
    c = moesim.run(SMALL, seed=6)
    assert a.summary == b.summary
    assert a.requests.equals(b.requests)
    assert a.summary["seed"] == 5 and c.summary["seed"] == 6


def test_seeds_give_different_runs_each_reproducible():
    seen = []
    runs = moesim.run(SMALL, seeds=[1, 2, 1], progress=lambda done, total, now_ns: seen.append((done, total)))
    assert [r.summary["seed"] for r in runs] == [1, 2, 1]
    assert runs[0].summary == runs[2].summary and runs[0].requests.equals(runs[2].requests)
    assert runs[0].summary != runs[1].summary
    assert not runs[0].requests.arrival_ns.equals(runs[1].requests.arrival_ns)
    assert runs[1].summary == moesim.run(SMALL, seed=2).summary  # a seed's run is the same run alone
    assert seen and all(total == 3 * 40 for _, total in seen) and 40 < max(done for done, _ in seen) <= 3 * 40
    table = moesim.summaries(runs)
    assert table.index.tolist() == [1, 2, 1] and len(table) == 3
    assert table["throughput.output_tokens_per_gpu_s"].tolist() == [
        r.summary["throughput"]["output_tokens_per_gpu_s"] for r in runs]
    with pytest.raises(TypeError):
        moesim.run(SMALL, seed=1, seeds=[2])
    with pytest.raises(moesim.ScenarioError, match="seed"):
        moesim.run(SMALL, seeds=[3, -1])


def test_layers_are_the_summarys_per_layer_times():
    r = moesim.run(SMALL, seed=1)
    pool = r.summary["pools"][0]
    rows = pool["layers_us_per_step"]
    assert len(r.layers) == len(rows) > 1
    assert r.layers.layer.tolist() == list(range(len(rows)))
    assert (r.layers.pool == 0).all() and (r.layers.role == pool["role"]).all()
    assert r.layers.wall_us.tolist() == [row["wall_us"] for row in rows]
    moe = r.layers[r.layers.moe]
    assert len(moe) > 0 and moe.dispatch_us.gt(0).all() and moe.expert_gemm_us.gt(0).all()
    assert r.layers[~r.layers.moe].dispatch_us.eq(0).all()  # dense layers move no tokens
    assert r.layers.wall_us.gt(0).all()


def test_output_writes_what_the_command_line_writes(tmp_path, cli):
    scenario = tmp_path / "small.yaml"
    scenario.write_text(json.dumps(SMALL))  # JSON is YAML
    r = moesim.run(moesim.Scenario.load(scenario), seed=4, output=tmp_path / "py", report=True)
    assert json.loads((tmp_path / "py" / "summary.json").read_text()) == r.summary
    assert len((tmp_path / "py" / "requests.csv").read_text().splitlines()) == len(r.requests) + 1
    assert len((tmp_path / "py" / "steps.csv").read_text().splitlines()) == len(r.steps) + 1
    done = cli("run", scenario, "--seed", 4, "--report", "-q", "-o", tmp_path / "cli")
    assert done.returncode == 0, done.stderr
    for name in ("summary.json", "requests.csv", "steps.csv", "report.html"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    runs = moesim.run(scenario, seeds=[5, 6], output=tmp_path / "seeds")
    for r in runs:
        written = json.loads((tmp_path / "seeds" / f"seed-{r.summary['seed']}" / "summary.json").read_text())
        assert written == r.summary
    assert not (tmp_path / "seeds" / "seed-5" / "report.html").exists()


def test_set_checks_like_the_command_line():
    s = moesim.Scenario(SMALL)
    with pytest.raises(moesim.ScenarioError) as e:
        s.set("deployment.colocated.moe.ep", 4)  # alone, inconsistent with 8 ranks
    assert str(e.value) == ("--set deployment.colocated.moe.ep=4: deployment.colocated.moe.ep: moe ep 4 x tp 1 = 4 "
                            "does not match ranks 8")
    assert e.value.key == "deployment.colocated.moe.ep"
    s.update({"deployment.colocated.moe.ep": 4, "deployment.colocated.ranks": 4}).set("workload.requests", 12)
    assert s.overrides == ["deployment.colocated.moe.ep=4", "deployment.colocated.ranks=4", "workload.requests=12"]
    with pytest.raises(moesim.ScenarioError) as e:
        s.set("workload.requestz", 10)
    assert "unknown key 'requestz'; did you mean 'requests'?" in str(e.value)
    assert len(s.overrides) == 3  # a refused change leaves the scenario as it was
    assert len(moesim.run(s).requests) == 12


def test_errors_carry_file_line_column_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: tiny-moe\nhardware: h100\ncluster: {nodes: 1}\ndeployment: {colocated: {ranks: 8}}\n"
                   "workload: {requests: many}\n")
    with pytest.raises(moesim.ScenarioError) as e:
        moesim.Scenario.load(bad)
    err = e.value
    assert str(err) == f"{bad}:5:22: workload.requests: expected an integer, got 'many'"
    assert (err.file, err.line, err.column, err.key) == (str(bad), 5, 22, "workload.requests")
    assert isinstance(err, ValueError)
    with pytest.raises(moesim.ScenarioError):
        moesim.Scenario({"model": "no-such-model"})


def test_progress_is_reported_and_threads_run_together():
    seen = []
    moesim.run(SMALL, progress=lambda done, total, now_ns: seen.append((done, total)))
    assert all(total == 40 for _, total in seen)
    results = {}

    def one(seed):
        results[seed] = moesim.run(SMALL, seed=seed).summary

    threads = [threading.Thread(target=one, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results[1] == moesim.run(SMALL, seed=1).summary  # a thread's run is the same run


def test_presets_list_every_registry():
    p = moesim.presets()
    assert ("deepseek-v3" in dict(p["models"])) and ("h800" in dict(p["hardware"]))
    assert "hgx" in dict(p["clusters"]) and "fitted" in dict(p["cost_models"])
    assert "layered-lognormal" in dict(p["routing_models"])


def test_the_ep_sweep_example_writes_its_plot(tmp_path):
    out = Path(os.environ.get("MOESIM_EXAMPLE_OUT", tmp_path))
    example = ROOT / "tools" / "python" / "examples" / "sweep_ep.py"
    done = subprocess.run([sys.executable, str(example), str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (out / "ep_sweep.png").stat().st_size > 1000
    assert "EP" in done.stdout or "ep" in done.stdout
