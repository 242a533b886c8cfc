"""The kernel- and routing-level what-ifs of `moesim gemm`, `moesim comm` and `moesim routing`.

Each function takes the command's flags as keyword arguments of the same names ("--cost-model"
is `cost_model`) and defaults; None leaves a flag out (the command's own default applies), True
gives a flag without a value. The flags are parsed by the command's own definitions, so a bad
value raises ScenarioError (a ValueError) with the message the command prints after "moesim: ".
"""
from . import _core
from ._errors import call


def _flags(values):
    args = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif not isinstance(value, str) and hasattr(value, "__iter__"):
            args.append(f"{flag}={','.join(str(v) for v in value)}")
        else:
            args.append(f"{flag}={value}")
    return args


def gemm(*, n, k, m=None, groups=None, counts=None, device="h800", dtype="fp8", cost_model="fitted"):
    """The cost model's prediction for one GEMM (m x k by k x n) or, with `groups` (m rows each)
    or `counts` (rows per group), one grouped GEMM, as `moesim gemm` prints it: a dict with
    `time_us`, `achieved_tflops`, `peak_tflops` (of the `units` the dtype runs on),
    `hbm_gb_per_s`, `bound` ("compute" or "memory"), `flops`, `bytes`, `rows`, `groups` (0 for a
    plain GEMM), `shape` and the inputs."""
    return call(_core.gemm, _flags(locals()))


def comm(*, cluster="hgx", nodes=None, device=None, op="dispatch", algo="hierarchical", fidelity="analytic",
         intra_node="scale-up", ep=8, tokens=128, hidden=7168, topk=8, experts=256, payload=None, routing="uniform",
         groups=None, top_groups=4):
    """One MoE dispatch or combine all-to-all on a cluster preset, as `moesim comm` prints it: a
    dict with `time_us` and its parts (`transfer_us`, `latency_us`, `message_us`, `fixed_us`),
    `per_rank_bytes` (what one rank sends or receives), `effective_gb_per_s`, `token_bytes`,
    `payload`, `nodes`, `devices`, the `bottleneck` link (None when no traffic leaves a rank) with
    its `bottleneck_bytes` and `bottleneck_gb_per_s`, and for low-latency kernels on a `device`
    the whole kernel (`kernel_us`, `kernel_send_us`, `kernel_transfer_us`, `kernel_receive_us`;
    otherwise None)."""
    return call(_core.comm, _flags(locals()))


def routing(*, ep, model="deepseek-v3", routing="uniform", s=1.0, hot_experts=8, hot_fraction=0.5, alpha=1.0,
            drift_rho=0.99, drift_sigma=0.5, base="uniform", trace=None, group_limited=False, groups=None,
            top_groups=None, placement="contiguous", redundant=0, split="even", devices_per_node=8, tokens=8192,
            layers=None, seed=1, step=0, steps=1, eplb_statistics="history", eplb_window=100, layer_sigma=1.0,
            layer_sigma_spread=0.4, step_sigma=0.2, step_memory=200, capacity_factor=0.0):
    """Per-layer expert-load imbalance of a routing model under a placement, as `moesim routing`
    prints it: a DataFrame with one row per MoE layer (`layer`, the decoder layer; `moe_layer`;
    `rank_imbalance` and `slot_imbalance`, (max - mean) / mean of the pairs each EP rank or expert
    copy receives; `rank_cv`, `slot_cv`; `dropped` pairs over capacity; all averaged over the
    steps but `dropped`, summed; and the last step's `hottest_rank`, `hottest_expert` and its
    `hottest_expert_share`). `df.attrs` holds the header line's facts: model, experts, top_k,
    moe_layers, routing, placement, redundant, split, eplb_statistics, ep, tokens, first_step,
    steps, seed, capacity_factor."""
    args = _flags(locals())  # first: the arguments alone
    import pandas as pd

    raw = call(_core.routing, args)
    df = pd.DataFrame(dict(raw["table"]))
    df.attrs.update(dict(raw["about"]))
    return df
