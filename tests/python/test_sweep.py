"""moesim.sweep (docs/python.md): one row per point with the Pareto frontiers and the best point
of `moesim sweep`, skipped points and their reasons, the same files as `moesim sweep -o`, the
command's messages, and the GIL released while the points run."""
import threading
import time
from pathlib import Path

import pytest

import moesim
from conftest import cli_message

ROOT = Path(__file__).resolve().parents[2]

BASE = ("name: tiny-sweep-base\nseed: 3\nmodel: tiny-moe\nhardware: h800\ncluster: {preset: hgx, nodes: 1}\n"
        "deployment:\n  colocated:\n    ranks: 8\n    attention: {dp: 8}\n    moe: {ep: 8}\n"
        "workload:\n  requests: 40\n  arrivals: {process: poisson, rate: 200/s}\n"
        "  input_tokens: {dist: fixed, value: 300}\n  output_tokens: {dist: fixed, value: 20}\n"
        "slo: {ttft_p90: 2s, tpot_p90: 50ms}\n")

# 3 x 2 points; 3 ranks do not divide tiny-moe's 16 experts, so points 4 and 5 are skipped.
SWEEP = ("base: base.yaml\n"
         "sweep:\n  deployment.colocated.ranks: [4, 8, 3]\n  workload.arrivals.rate: [100/s, 400/s]\n"
         "derived:\n  deployment.colocated.attention.dp: deployment.colocated.ranks\n"
         "  deployment.colocated.moe.ep: deployment.colocated.ranks\n"
         "objective: {maximize: output_tokens_per_gpu_s, subject_to: {tpot_p90: 50ms, ttft_p90: 2s}}\n")


@pytest.fixture
def sweep_file(tmp_path):
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "sw.yaml").write_text(SWEEP)
    return tmp_path / "sw.yaml"


def dominated(row, rows, latency):
    return any(r.output_tokens_per_gpu_s >= row.output_tokens_per_gpu_s and r[latency] <= row[latency]
               and (r.output_tokens_per_gpu_s, r[latency]) != (row.output_tokens_per_gpu_s, row[latency])
               for _, r in rows.iterrows())


def test_a_sweep_returns_one_row_per_point_with_its_frontiers_and_best_point(sweep_file):
    seen = []
    df = moesim.sweep(sweep_file, jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert len(df) == 6 and df["index"].tolist() == list(range(6))
    assert sorted(seen) == [(k, 6) for k in range(1, 7)]
    assert df["deployment.colocated.ranks"].tolist() == [4, 4, 8, 8, 3, 3]  # numbers, as results.csv reads
    assert df["deployment.colocated.moe.ep"].tolist() == [4, 4, 8, 8, 3, 3]  # derived
    assert df["workload.arrivals.rate"].tolist() == ["100/s", "400/s"] * 3
    assert df.status.tolist() == ["ok"] * 4 + ["skipped"] * 2
    assert df.reason[4].endswith("deployment.colocated.moe.ep: 16 routed experts do not divide over ep 3")
    assert df.reason[:4].eq("").all()
    ok = df[df.status == "ok"]
    assert ok.output_tokens_per_gpu_s.gt(0).all() and df.tpot_p90_s[4:].isna().all()
    for latency in ("tpot_p90", "ttft_p90"):
        front = df[df[f"pareto_{latency}"]]
        assert len(front) > 0 and (front.status == "ok").all()
        for _, row in ok.iterrows():  # on the frontier exactly when no other point beats it on both
            assert row[f"pareto_{latency}"] == (not dominated(row, ok, f"{latency}_s")), (latency, row["index"])
    # The best point: the most tokens/s per GPU among the points meeting the SLO.
    meets = ok[(ok.tpot_p90_s <= 0.05) & (ok.ttft_p90_s <= 2.0)]
    assert len(meets) > 0
    best = meets.output_tokens_per_gpu_s.idxmax()
    assert df.attrs["best"] == best and df.best.tolist() == [i == best for i in range(6)]
    assert df.attrs["objective"] == ("maximize output_tokens_per_gpu_s subject to tpot_p90 <= 50 ms, "
                                     "ttft_p90 <= 2000 ms")
    # Rows do not depend on the threads that ran them.
    assert moesim.sweep(sweep_file, jobs=1).equals(df)


def test_a_sweep_writes_the_files_of_the_command(sweep_file, tmp_path, cli):
    df = moesim.sweep(sweep_file, jobs=2, output=tmp_path / "py")
    assert cli("sweep", sweep_file, "-j", 2, "-q", "-o", tmp_path / "cli").returncode == 0
    for name in ("pareto.csv", "best.yaml", "report.html"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    for name in ("results.csv", "results.jsonl"):  # the command writes rows as they finish, in any order
        py, cmd = ((tmp_path / d / name).read_text().splitlines() for d in ("py", "cli"))
        assert sorted(py) == sorted(cmd), name
    assert len((tmp_path / "py" / "results.csv").read_text().splitlines()) == len(df) + 1
    assert f"# Best point ({df.attrs['best']}) of sweep " in (tmp_path / "py" / "best.yaml").read_text()


def test_sweep_errors_are_the_commands(sweep_file, tmp_path, cli):
    with pytest.raises(moesim.ScenarioError) as e:
        moesim.sweep(tmp_path / "missing.yaml")
    assert str(e.value) == f"cannot open sweep file '{tmp_path / 'missing.yaml'}'"
    sweep_file.write_text("base: base.yaml\nsweep:\n  deployment.colocated.moe.epp: [8]\n")
    with pytest.raises(moesim.ScenarioError) as e:
        moesim.sweep(sweep_file)
    assert str(e.value) == cli_message(cli("sweep", sweep_file, "-o", tmp_path / "out"))
    assert str(e.value).endswith(":3:3: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?")
    assert (e.value.line, e.value.column) == (3, 3)
    with pytest.raises(ValueError):
        moesim.sweep(sweep_file, jobs=0)


def test_other_threads_run_while_a_sweep_runs():
    marks, span = [], {}

    def sweep():
        span["start"] = time.perf_counter()
        span["rows"] = len(moesim.sweep(ROOT / "scenarios" / "library" / "sweeps" / "dsv3-skew-placement.yaml", jobs=1))
        span["end"] = time.perf_counter()

    t = threading.Thread(target=sweep)
    t.start()
    while t.is_alive():
        marks.append(time.perf_counter())
        time.sleep(0.002)
    t.join()
    assert span["rows"] == 8
    quarter = (span["end"] - span["start"]) / 4
    middle = [m for m in marks if span["start"] + quarter < m < span["end"] - quarter]
    assert len(middle) >= 5, (len(middle), span)  # with the GIL held, no Python would run mid-sweep
