#!/usr/bin/env python3
"""Sweeps the expert-parallel degree of a DeepSeek-V3 decode deployment and plots TPOT against
output throughput per GPU, one point per EP degree (the trade-off a deployment is chosen on).

    PYTHONPATH=build/python python3 tools/python/examples/sweep_ep.py [OUT_DIR]

Writes OUT_DIR/ep_sweep.png and OUT_DIR/ep_sweep.csv (default: out/python-example).
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import moesim  # noqa: E402

BASE = {
    "name": "dsv3-ep-sweep",
    "model": "deepseek-v3",
    "hardware": "h800",
    "cluster": {"preset": "hgx", "nodes": 4},
    "deployment": {"colocated": {"ranks": 32, "moe": {"ep": 32}, "batch": {"max_running_per_rank": 64}}},
    "routing": {"model": "layered-lognormal"},
    "workload": {"requests": 400, "arrivals": {"process": "closed-loop", "concurrency": 512},
                 "input_tokens": {"dist": "fixed", "value": 1000}, "output_tokens": {"dist": "fixed", "value": 200}},
}


def point(ep):
    s = moesim.Scenario(BASE)
    s.update({"cluster.nodes": ep // 8, "deployment.colocated.ranks": ep, "deployment.colocated.moe.ep": ep})
    r = moesim.run(s, seed=1)  # threads run in parallel: the simulation releases the GIL
    return {"ep": ep, "tpot_p50_ms": 1e3 * r.summary["latency"]["tpot"]["p50_s"],
            "output_tokens_per_gpu_s": r.summary["throughput"]["output_tokens_per_gpu_s"]}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MOESIM_EXAMPLE_OUT", "out/python-example")
    os.makedirs(out, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = pd.DataFrame(list(pool.map(point, [16, 32, 64])))
    rows.to_csv(os.path.join(out, "ep_sweep.csv"), index=False)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(rows.output_tokens_per_gpu_s, rows.tpot_p50_ms, marker="o")
    for _, r in rows.iterrows():
        ax.annotate(f"EP{int(r.ep)}", (r.output_tokens_per_gpu_s, r.tpot_p50_ms), textcoords="offset points",
                    xytext=(4, 4))
    ax.set_xlabel("output tokens/s per GPU")
    ax.set_ylabel("TPOT p50 (ms)")
    ax.set_title("DeepSeek-V3 decode on H800: EP degree")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ep_sweep.png"), dpi=100)
    print(rows.to_string(index=False))


if __name__ == "__main__":
    main()
