"""moesim from Python: load a scenario, change it, run it, read the results as pandas DataFrames.

    import moesim
    s = moesim.Scenario.load("scenarios/library/dsv3-h800-32gpu.yaml")
    s.set("workload.requests", 500)
    r = moesim.run(s, seed=3)
    r.summary["output_tokens_per_s_per_gpu"], r.requests.ttft_s.quantile(0.9)

Scenarios are checked, and errors reported, exactly as by `moesim run` (`--set` for `set`):
a bad input raises moesim.ScenarioError carrying the file, line, column and key path. The
simulation runs with the GIL released, so threads can run scenarios in parallel. docs/python.md.
"""
import copy
import json
import re

from . import _core

__all__ = ["Scenario", "Result", "ScenarioError", "run", "presets"]


class ScenarioError(ValueError):
    """Bad input: `file`, `line`, `column` and `key` (dotted path) where the message names them."""

    _WHERE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<column>\d+): (?:(?P<key>[\w.\[\]-]+): )?")
    _SET = re.compile(r"^--set [^ ]*?: (?:(?P<key>[\w.\[\]-]+): )?")

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        self.file = self.line = self.column = self.key = None
        m = self._WHERE.match(message)
        if m:
            self.file, self.line, self.column = m.group("file"), int(m.group("line")), int(m.group("column"))
            self.key = m.group("key")
        elif (m := self._SET.match(message)):
            self.key = m.group("key")


def _call(f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except _core.InputError as e:
        raise ScenarioError(str(e)) from None


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


class Result:
    """A finished run: `summary` (the dict of summary.json), `requests` and `steps` (DataFrames)."""

    def __init__(self, raw):
        import numpy as np
        import pandas as pd

        self.summary = json.loads(raw["summary_json"])
        req = dict(raw["requests"])
        requests = pd.DataFrame(req)
        done = requests.first_token_ns >= 0
        requests["ttft_s"] = np.where(done, (requests.first_token_ns - requests.arrival_ns) * 1e-9, np.nan)
        finished = requests.finish_ns >= 0
        decoded = (requests.output_tokens - 1).clip(lower=1)
        requests["tpot_s"] = np.where(finished & done, (requests.finish_ns - requests.first_token_ns) * 1e-9 / decoded,
                                      np.nan)
        requests["e2e_s"] = np.where(finished, (requests.finish_ns - requests.arrival_ns) * 1e-9, np.nan)
        self.requests = requests
        self.steps = pd.DataFrame(dict(raw["steps"]))

    def __repr__(self):
        return f"Result({self.summary.get('scenario', '?')!r}, {len(self.requests)} requests, {len(self.steps)} steps)"


def run(scenario, seed=None, progress=None):
    """Simulates `scenario` (a Scenario, a dict, or a path) and returns its Result. `seed`
    overrides the scenario's; `progress(done, total, sim_time_ns)` is called as requests finish."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario(scenario) if isinstance(scenario, dict) else Scenario.load(scenario)
    overrides = list(scenario._overrides)
    if seed is not None:
        overrides.append(f"seed={int(seed)}")
    return Result(_call(_core.run, scenario._source, overrides, progress))


def presets():
    """{registry: [(name, description), ...]}: models, hardware, clusters, cost and routing models."""
    return _core.presets()
