"""moesim.gemm, moesim.comm and moesim.routing (docs/python.md): the figures of `moesim gemm`,
`moesim comm` and `moesim routing`, their flags' names and defaults, and their messages."""
import inspect
import math
import re

import pytest

import moesim
from conftest import cli_message


def test_a_gemm_takes_longer_as_m_grows_and_counts_its_flops():
    times = [moesim.gemm(m=m, n=4096, k=7168)["time_us"] for m in (64, 256, 1024, 4096, 16384)]
    assert all(a < b for a, b in zip(times, times[1:])), times
    g = moesim.gemm(m=4096, n=4096, k=7168)
    assert g["flops"] == 2 * 4096 * 4096 * 7168
    assert g["bound"] == "compute" and g["units"] == "fp8" and g["device"] == "h800"
    assert 0 < g["achieved_tflops"] <= g["peak_tflops"]
    assert g["achieved_tflops"] == pytest.approx(g["flops"] / (g["time_us"] * 1e-6) * 1e-12)
    # A grouped GEMM of 8 groups of 256 rows is the one given by its counts.
    grouped = moesim.gemm(m=256, groups=8, n=4096, k=7168)
    assert grouped["groups"] == 8 and grouped["rows"] == 2048
    assert grouped["shape"] == "grouped gemm 8 groups, 2048 rows"
    assert moesim.gemm(counts=[256] * 8, n=4096, k=7168)["time_us"] == grouped["time_us"]
    assert moesim.gemm(m=64, n=4096, k=7168, dtype="bf16")["units"] == "bf16"


def test_gemm_figures_are_those_the_command_prints(cli):
    g = moesim.gemm(m=256, groups=8, n=4096, k=7168, device="h800")
    out = cli("gemm", "--device", "h800", "--m", 256, "--groups", 8, "--n", 4096, "--k", 7168).stdout
    assert f"time      {g['time_us']:10.2f} us" in out
    assert f"achieved  {g['achieved_tflops']:10.1f} TFLOPS (peak {g['peak_tflops']:.0f} of its fp8 units)" in out
    assert f"bound     {g['bound']}" in out


def test_bad_gemm_flags_raise_the_commands_messages(cli):
    cases = [(dict(m=1, n=1, k=1, device="h8000"), ["--m", 1, "--n", 1, "--k", 1, "--device", "h8000"]),
             (dict(m=0, n=1, k=1), ["--m", 0, "--n", 1, "--k", 1]),
             (dict(n=1, k=1), ["--n", 1, "--k", 1]),
             (dict(counts=[1, 2], groups=3, n=1, k=1), ["--counts", "1,2", "--groups", 3, "--n", 1, "--k", 1]),
             (dict(m=1, n=1, k=1, cost_model="fited"), ["--m", 1, "--n", 1, "--k", 1, "--cost-model", "fited"])]
    for kwargs, flags in cases:
        with pytest.raises(ValueError) as e:
            moesim.gemm(**kwargs)
        assert isinstance(e.value, moesim.ScenarioError)
        assert str(e.value) == cli_message(cli("gemm", *flags))
    with pytest.raises(moesim.ScenarioError) as e:
        moesim.gemm(m=0, n=1, k=1)
    assert str(e.value) == "--m: Value 0 not in range 1 to 1099511627776"
    with pytest.raises(moesim.ScenarioError) as e:
        moesim.gemm(m=1, n=1, k=1, device="h8000")
    assert str(e.value).startswith("--device: unknown hardware 'h8000'; did you mean 'h800'? (valid: h800, ")


def test_comm_bytes_per_rank_are_the_expected_uniform_traffic():
    c = moesim.comm(cluster="hgx", nodes=4, device="h800", op="dispatch", algo="low-latency", ep=32, tokens=128,
                    hidden=7168, topk=8, experts=256, payload="fp8")
    # A token goes once to every other rank holding one of its 8 experts (8 of 256 per rank).
    p = 1 - math.prod((248 - i) / (256 - i) for i in range(8))
    assert c["per_rank_bytes"] == pytest.approx(128 * 31 * p * c["token_bytes"], rel=1e-12)
    assert c["token_bytes"] == 7168 + 7168 // 128 * 4 + 8 * (4 + 4)  # FP8 values, scales, expert ids and weights
    assert (c["nodes"], c["devices"], c["payload"]) == (4, 32, "fp8")
    assert c["time_us"] == pytest.approx(c["transfer_us"] + c["latency_us"] + c["message_us"] + c["fixed_us"])
    assert c["effective_gb_per_s"] == pytest.approx(c["per_rank_bytes"] / (c["time_us"] * 1e3))
    assert "scale-out" in c["bottleneck"] and c["bottleneck_gb_per_s"] > 0
    assert c["kernel_us"] == pytest.approx(c["kernel_send_us"] + c["kernel_transfer_us"] + c["kernel_receive_us"])
    assert c["kernel_transfer_us"] == c["time_us"]
    # A combine returns each pair in BF16; without a device there is no kernel to add.
    back = moesim.comm(ep=32, nodes=4, op="combine")
    assert back["payload"] == "bf16" and back["token_bytes"] == 7168 * 2
    assert back["per_rank_bytes"] == pytest.approx(128 * 31 * p * 7168 * 2, rel=1e-12)
    assert back["kernel_us"] is None
    # One rank sends nothing anywhere.
    alone = moesim.comm(ep=1)
    assert alone["per_rank_bytes"] == 0 and alone["bottleneck"] is None


def test_comm_figures_and_messages_are_the_commands(cli):
    c = moesim.comm(ep=16, fidelity="flow", op="combine")
    out = cli("comm", "--ep", 16, "--fidelity", "flow", "--op", "combine").stdout
    assert f"time            {c['time_us']:10.1f} us" in out
    assert f"per rank        {c['per_rank_bytes'] / 1e6:10.2f} MB, effective {c['effective_gb_per_s']:.1f} GB/s" in out
    assert f"bottleneck      {c['bottleneck']}, {c['bottleneck_bytes'] / 1e6:.2f} MB" in out
    for kwargs, flags in [(dict(op="foo"), ["--op", "foo"]), (dict(ep=0), ["--ep", 0]),
                          (dict(ep=64, nodes=2), ["--ep", 64, "--nodes", 2]), (dict(payload="fp9"), ["--payload", "fp9"])]:
        with pytest.raises(moesim.ScenarioError) as e:
            moesim.comm(**kwargs)
        assert str(e.value) == cli_message(cli("comm", *flags))


def test_comm_messages_name_the_flag():
    with pytest.raises(ValueError, match=r"^cluster: --op must be dispatch or combine$"):
        moesim.comm(op="foo")
    with pytest.raises(ValueError, match=r"^cluster: --ep 64 does not fit on 16 devices \(2 x 8\)$"):
        moesim.comm(ep=64, nodes=2)
    with pytest.raises(ValueError, match=r"^--ep: Value 0 not in range 1 to 1048576$"):
        moesim.comm(ep=0)


def test_eplb_spreads_skewed_routing_better_than_contiguous_placement():
    args = dict(model="deepseek-v3", routing="zipf", s=1.0, ep=32, tokens=8192)
    contiguous = moesim.routing(placement="contiguous", **args)
    eplb = moesim.routing(placement="eplb", redundant=32, **args)
    assert len(contiguous) == len(eplb) == 58  # one row per MoE layer: decoder layers 3..60
    assert eplb.layer.tolist() == list(range(3, 61)) and eplb.moe_layer.tolist() == list(range(58))
    assert eplb.rank_imbalance.mean() < contiguous.rank_imbalance.mean() / 2
    assert (eplb.rank_imbalance < contiguous.rank_imbalance).all()
    assert eplb.attrs["placement"] == "eplb" and eplb.attrs["redundant"] == 32 and eplb.attrs["moe_layers"] == 58
    assert eplb.dropped.sum() == 0 and eplb.hottest_expert_share.between(0, 1).all()
    # The same seed, the same draw; a capacity limit drops the excess pairs.
    assert moesim.routing(placement="eplb", redundant=32, **args).equals(eplb)
    capped = moesim.routing(placement="contiguous", capacity_factor=1.0, layers=4, **args)
    assert len(capped) == 4 and capped.dropped.gt(0).all()


def test_routing_table_and_messages_are_the_commands(cli):
    df = moesim.routing(ep=8, model="mixtral-8x7b", steps=3, seed=7)
    out = cli("routing", "--ep", 8, "--model", "mixtral-8x7b", "--steps", 3, "--seed", 7).stdout
    rows = [line.split() for line in out.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\d", line)]
    assert len(rows) == len(df) == 32
    for row, (_, r) in zip(rows, df.iterrows()):
        assert [int(row[0]), int(row[1])] == [r.layer, r.moe_layer]
        assert float(row[2]) == pytest.approx(r.rank_imbalance, abs=5e-4)
        assert int(row[6]) == r.hottest_rank and int(row[7]) == r.hottest_expert
    for kwargs, flags in [(dict(ep=8, model="nope"), ["--ep", 8, "--model", "nope"]),
                          (dict(ep=8, routing="zipf", s=-1.0), ["--ep", 8, "--routing", "zipf", "--s=-1.0"]),
                          (dict(ep=7, placement="eplb", redundant=1), ["--ep", 7, "--placement", "eplb",
                                                                       "--redundant", 1])]:
        with pytest.raises(moesim.ScenarioError) as e:
            moesim.routing(**kwargs)
        assert str(e.value) == cli_message(cli("routing", *flags))


def test_keyword_names_and_defaults_are_the_flags():
    for f in (moesim.gemm, moesim.comm, moesim.routing):
        flags = moesim._core.flag_defaults(f.__name__)
        params = inspect.signature(f).parameters
        assert sorted("--" + name.replace("_", "-") for name in params) == sorted(flags)
        for name, p in params.items():
            cli_default = flags["--" + name.replace("_", "-")]
            if p.default is inspect.Parameter.empty or p.default is None:
                assert cli_default in ("", "0", "[]"), name  # required, or the flag left out
            elif isinstance(p.default, bool):
                assert p.default is False and cli_default == "", name
            elif isinstance(p.default, str):
                assert p.default == cli_default, name
            else:
                assert p.default == float(cli_default), name
