"""moesim from Python: load a scenario, change it, run it, read the results as pandas DataFrames;
sweep a space of scenarios; ask the kernel- and routing-level what-ifs.

    import moesim
    s = moesim.Scenario.load("scenarios/library/dsv3-h800-32gpu.yaml")
    s.set("workload.requests", 500)
    r = moesim.run(s, seed=3)
    r.summary["throughput"]["output_tokens_per_gpu_s"], r.requests.ttft_s.quantile(0.9), r.layers
    runs = moesim.run(s, seeds=range(4))            # a list of Results, run in parallel
    points = moesim.sweep("scenarios/library/sweeps/dsv3-skew-placement.yaml", jobs=2)
    moesim.gemm(m=256, n=4096, k=7168)["time_us"]

Scenarios are checked, and errors reported, exactly as by `moesim run` (`--set` for `set`):
a bad input raises moesim.ScenarioError carrying the file, line, column and key path. The
simulation runs with the GIL released, so threads can run scenarios in parallel. docs/python.md.
"""
import copy
import json
import os

from . import _core
from ._errors import ScenarioError, call as _call
from ._results import Result, summaries
from ._sweep import sweep
from ._what_if import comm, gemm, routing

for _public in (ScenarioError, Result, summaries, sweep, comm, gemm, routing):
    _public.__module__ = __name__  # shown as moesim.ScenarioError, not moesim._errors.ScenarioError

__all__ = ["Scenario", "Result", "ScenarioError", "run", "summaries", "sweep", "gemm", "comm", "routing",
           "presets"]


def _override_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)  # YAML flow syntax is a superset of JSON
    return str(value)


class Scenario:
    """A scenario file or dict plus the overrides set on it; checked whenever it changes."""

    def __init__(self, spec, *, source="<dict>"):
        """A scenario from a dict with the keys of a scenario file (docs/scenario-reference.md)."""
        if not isinstance(spec, dict):
            raise TypeError("Scenario(dict): expected a dict of scenario keys; use Scenario.load(path) for a file")
        self._source = _core.Source(json.dumps(spec), source, False)
        self._overrides = []
        self.name = _call(_core.check, self._source, self._overrides)

    @classmethod
    def load(cls, path):
        """The scenario in the YAML file at `path`."""
        s = cls.__new__(cls)
        s._source = _core.Source(str(path), str(path), True)
        s._overrides = []
        s.name = _call(_core.check, s._source, s._overrides)
        return s

    def set(self, key, value):
        """Sets the dotted `key` (e.g. "deployment.colocated.moe.ep") to `value`, with the
        checks and messages of `moesim run --set key=value`; returns the scenario."""
        overrides = self._overrides + [f"{key}={_override_value(value)}"]
        self.name = _call(_core.check, self._source, overrides)
        self._overrides = overrides
        return self

    def update(self, values):
        """Sets several dotted keys at once ({key: value}), checked together: for changes that
        are only consistent together (ranks and EP degree); returns the scenario."""
        overrides = self._overrides + [f"{k}={_override_value(v)}" for k, v in values.items()]
        self.name = _call(_core.check, self._source, overrides)
        self._overrides = overrides
        return self

    def copy(self):
        return copy.copy(self)

    def __copy__(self):
        s = Scenario.__new__(Scenario)
        s._source, s._overrides, s.name = self._source, list(self._overrides), self.name
        return s

    @property
    def overrides(self):
        return list(self._overrides)

    def __repr__(self):
        return f"Scenario({self.name!r}, overrides={self._overrides!r})"


def _seed(value):
    if isinstance(value, bool) or int(value) != value:
        raise ValueError(f"seeds: expected integers, got {value!r}")
    return int(value)


def run(scenario, seed=None, progress=None, *, seeds=None, output=None, report=False):
    """Simulates `scenario` (a Scenario, a dict, or a path) and returns its Result. `seed`
    overrides the scenario's; `progress(done, total, sim_time_ns)` is called as requests finish.

    `seeds=[...]` runs once per seed instead, in parallel threads, and returns the list of
    Results in that order (moesim.summaries(results) tabulates them); `progress` then counts the
    requests of all the runs together.

    `output=DIR` writes what `moesim run -o DIR` writes (summary.json, requests.csv, steps.csv;
    report.html with `report=True` or the scenario's outputs.report); with `seeds`, each run's
    in DIR/seed-<seed>/."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario) if isinstance(scenario, dict) else Scenario.load(scenario)
    if seeds is None:
        runs = [scenario._overrides + ([] if seed is None else [f"seed={int(seed)}"])]
        outputs = ["" if output is None else str(output)]
    else:
        if seed is not None:
            raise TypeError("run: give seed or seeds, not both")
        seeds = [_seed(s) for s in seeds]
        if not seeds:
            raise ValueError("seeds: expected at least one seed")
        if output is not None and len(set(seeds)) < len(seeds):
            raise ValueError(f"seeds: a seed appears twice; each run writes its own folder in {output}")
        runs = [scenario._overrides + [f"seed={s}"] for s in seeds]
        outputs = ["" if output is None else os.path.join(str(output), f"seed-{s}") for s in seeds]
    results = [Result(raw) for raw in _call(_core.run, scenario._source, runs, outputs, bool(report), progress)]
    return results if seeds is not None else results[0]


def presets():
    """{registry: [(name, description), ...]}: models, hardware, clusters, cost and routing models."""
    return _core.presets()
