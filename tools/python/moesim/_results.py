"""A finished run as pandas: Result (summary dict, requests, steps and layers DataFrames) and
summaries(), one row per run, for runs over several seeds."""
import json


class Result:
    """A finished run: `summary` (the dict of summary.json), `requests`, `steps` and `layers`
    (DataFrames)."""

    def __init__(self, raw):
        import numpy as np
        import pandas as pd

        self.summary = json.loads(raw["summary_json"])
        requests = pd.DataFrame(dict(raw["requests"]))
        done = requests.first_token_ns >= 0
        requests["ttft_s"] = np.where(done, (requests.first_token_ns - requests.arrival_ns) * 1e-9, np.nan)
        finished = requests.finish_ns >= 0
        decoded = (requests.output_tokens - 1).clip(lower=1)
        requests["tpot_s"] = np.where(finished & done, (requests.finish_ns - requests.first_token_ns) * 1e-9 / decoded,
                                      np.nan)
        requests["e2e_s"] = np.where(finished, (requests.finish_ns - requests.arrival_ns) * 1e-9, np.nan)
        self.requests = requests
        self.steps = pd.DataFrame(dict(raw["steps"]))
        self.layers = _layers(self.summary, pd)

    def __repr__(self):
        return f"Result({self.summary.get('scenario', '?')!r}, {len(self.requests)} requests, {len(self.steps)} steps)"


def _layers(summary, pd):
    """summary.json's `layers_us_per_step` of every pool, one row per pool and layer."""
    rows = []
    for p, pool in enumerate(summary.get("pools", [])):
        for layer in pool.get("layers_us_per_step", []):
            rows.append({"pool": p, "role": pool.get("role"), **layer})
    return pd.DataFrame(rows, columns=None if rows else ["pool", "role", "layer", "moe"])


def summaries(results):
    """One row per Result (index: its seed), the columns the scalar fields of its summary with
    dotted names ("latency.tpot.p90_s", "throughput.output_tokens_per_gpu_s", ...), for comparing
    or averaging runs over seeds: `moesim.summaries(moesim.run(s, seeds=range(5))).mean(numeric_only=True)`."""
    import pandas as pd

    flat = pd.json_normalize([{k: v for k, v in r.summary.items() if k != "pools"} for r in results], sep=".")
    return flat.set_index("seed")
