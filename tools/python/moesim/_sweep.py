"""moesim.sweep: every point of a sweep file as one DataFrame row, with the Pareto frontiers and
the best point `moesim sweep` reports."""
from . import _core
from ._errors import call


def sweep(path, jobs=None, output=None, progress=None):
    """Runs every point of the sweep file at `path` (docs/sweeps.md) on `jobs` threads (default:
    one per hardware thread) with the GIL released, as `moesim sweep` does, and returns a
    DataFrame with one row per point in index order: `index`, `status` ("ok", "skipped",
    "failed"), one column per swept or derived key (numbers where every value is one), the
    metrics of results.csv (NaN unless ok), `reason`, and the flags `pareto_tpot_p90`,
    `pareto_ttft_p90` (on that frontier of output tokens/s per GPU against the latency) and `best`
    (the point best.yaml holds). `df.attrs` holds "best" (its index, or None when no point meets
    the constraints), "objective" (as `moesim sweep` prints it) and "sweep" (the path).
    `output=DIR` also writes what `moesim sweep -o DIR` writes; `progress(done, total)` is called
    as points finish."""
    import pandas as pd

    if jobs is not None and (isinstance(jobs, bool) or int(jobs) < 1):
        raise ValueError(f"jobs: expected a positive number of threads, got {jobs!r}")
    raw = call(_core.sweep, str(path), 0 if jobs is None else int(jobs), "" if output is None else str(output),
               progress)
    columns = {"index": raw["index"], "status": raw["status"]}
    for key, values in raw["params"].items():
        columns[key] = _numbers(pd, values)
    columns.update(raw["metrics"])
    columns["reason"] = raw["reason"]
    columns["pareto_tpot_p90"] = raw["pareto_tpot_p90"]
    columns["pareto_ttft_p90"] = raw["pareto_ttft_p90"]
    df = pd.DataFrame(columns)
    df["best"] = df["index"] == raw["best"] if raw["best"] is not None else False
    df.attrs.update({"best": raw["best"], "objective": raw["objective"], "sweep": str(path)})
    return df


def _numbers(pd, values):
    """A parameter's values (one line of flow YAML each) as numbers when every one is a number."""
    try:
        return pd.to_numeric(pd.Series(values, dtype=object))
    except (ValueError, TypeError):
        return values
