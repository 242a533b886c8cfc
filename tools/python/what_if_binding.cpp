// `_core.gemm`, `_core.comm`, `_core.routing`: the kernel- and routing-level what-ifs of `moesim
// gemm`, `moesim comm` and `moesim routing`. Each takes the command's flags as arguments
// ("--ep=32"), parsed by the command's own flag definitions so that defaults, range checks and
// messages are the command line's, and returns what the command prints as a dict.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/comm_command.h"
#include "tools/gemm_command.h"
#include "tools/python/bindings.h"
#include "tools/routing_command.h"

namespace py = pybind11;

namespace moesim::python {
namespace {

// The command's flags parsed from `args` into its options (CLI::ParseError on a bad value).
template <class Options, class AddFlags>
Options parse_flags(const char* command, AddFlags add_flags, const std::vector<std::string>& args) {
  Options o;
  CLI::App app{"", command};
  add_flags(app, o);
  app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 takes them reversed
  return o;
}

// {"--flag": default} of a command, as its help shows them (flags without a value: "").
template <class Options, class AddFlags>
py::dict defaults_of(AddFlags add_flags) {
  Options o;
  CLI::App app{"", "defaults"};
  app.option_defaults()->always_capture_default();
  add_flags(app, o);
  py::dict d;
  for (const CLI::Option* opt : app.get_options())
    if (!opt->get_lnames().empty() && opt->get_lnames().front() != "help")
      d[py::str("--" + opt->get_lnames().front())] = opt->get_default_str();
  return d;
}

py::dict flag_defaults(const std::string& command) {
  if (command == "gemm") return defaults_of<tools::GemmOptions>(tools::add_gemm_flags);
  if (command == "comm") return defaults_of<tools::CommOptions>(tools::add_comm_flags);
  if (command == "routing") return defaults_of<tools::RoutingOptions>(tools::add_routing_flags);
  throw py::value_error("no command '" + command + "'");
}

py::dict gemm(const std::vector<std::string>& args) {
  const auto o = parse_flags<tools::GemmOptions>("gemm", tools::add_gemm_flags, args);
  tools::GemmPrediction p;
  {
    py::gil_scoped_release free;
    p = tools::predict_gemm(o);
  }
  const calibration::KernelCost& c = p.cost;
  py::dict d;
  d["shape"] = p.shape;
  d["m"] = o.m > 0 ? py::object(py::int_(o.m)) : py::object(py::none());
  d["n"] = o.n;
  d["k"] = o.k;
  d["groups"] = p.groups;
  d["rows"] = p.rows;
  d["dtype"] = o.dtype;
  d["device"] = p.device;
  d["cost_model"] = o.cost_model;
  d["time_us"] = c.time_ns * 1e-3;
  d["flops"] = c.flops;
  d["bytes"] = c.bytes;
  d["achieved_tflops"] = c.time_ns > 0 ? c.flops / c.time_ns * 1e-3 : 0.0;
  d["peak_tflops"] = p.peak_flops_per_s * 1e-12;
  d["units"] = p.units;
  d["hbm_gb_per_s"] = c.time_ns > 0 ? c.bytes / c.time_ns : 0.0;
  d["bound"] = c.compute_bound ? "compute" : "memory";
  return d;
}

py::dict comm(const std::vector<std::string>& args) {
  const auto o = parse_flags<tools::CommOptions>("comm", tools::add_comm_flags, args);
  tools::CommEstimate e;
  {
    py::gil_scoped_release free;
    e = tools::estimate_comm(o);
  }
  const topology::CommResult& r = e.result;
  py::dict d;
  d["op"] = o.op;
  d["algo"] = o.algo;
  d["fidelity"] = o.fidelity;
  d["cluster"] = o.cluster;
  d["nodes"] = e.nodes;
  d["devices"] = e.devices;
  d["ep"] = o.ep;
  d["tokens"] = o.tokens;
  d["topk"] = o.topk;
  d["experts"] = o.experts;
  d["routing"] = o.routing;
  d["payload"] = e.payload;
  d["token_bytes"] = e.token_bytes;
  d["time_us"] = r.duration_ns * 1e-3;
  d["transfer_us"] = r.transfer_ns * 1e-3;
  d["latency_us"] = r.latency_ns * 1e-3;
  d["message_us"] = r.message_ns * 1e-3;
  d["fixed_us"] = r.fixed_ns * 1e-3;
  d["per_rank_bytes"] = e.per_rank_bytes;
  d["effective_gb_per_s"] = r.duration_ns > 0 ? e.per_rank_bytes / r.duration_ns : 0.0;
  const bool idle = r.bottleneck_link < 0;
  d["bottleneck"] = idle ? py::object(py::none()) : py::object(py::str(e.bottleneck));
  d["bottleneck_bytes"] = e.bottleneck_bytes;
  d["bottleneck_gb_per_s"] = e.bottleneck_bytes_per_s * 1e-9;
  auto kernel = [&e](double sim::LowLatencyKernel::*part) {
    return e.kernel ? py::object(py::float_((*e.kernel).*part * 1e-3)) : py::object(py::none());
  };
  d["kernel_us"] = e.kernel ? py::object(py::float_(e.kernel->total() * 1e-3)) : py::object(py::none());
  d["kernel_send_us"] = kernel(&sim::LowLatencyKernel::send);
  d["kernel_transfer_us"] = kernel(&sim::LowLatencyKernel::transfer);
  d["kernel_receive_us"] = kernel(&sim::LowLatencyKernel::receive);
  return d;
}

// The per-layer table as columns, and the header line's facts.
py::dict routing(const std::vector<std::string>& args) {
  const auto o = parse_flags<tools::RoutingOptions>("routing", tools::add_routing_flags, args);
  tools::RoutingWhatIf w;
  {
    py::gil_scoped_release free;
    w = tools::routing_what_if(o);
  }
  const auto n = static_cast<py::ssize_t>(w.study.size());
  py::array_t<std::int64_t> layer(n), moe_layer(n), hottest_rank(n), hottest_expert(n), dropped(n);
  py::array_t<double> rank_imbalance(n), slot_imbalance(n), rank_cv(n), slot_cv(n), share(n);
  for (py::ssize_t l = 0; l < n; ++l) {
    const sim::ImbalanceStats& mean = w.study[static_cast<std::size_t>(l)].mean;
    const sim::ImbalanceStats& last = w.study[static_cast<std::size_t>(l)].last;
    layer.mutable_at(l) = w.layer[static_cast<std::size_t>(l)];
    moe_layer.mutable_at(l) = l;
    rank_imbalance.mutable_at(l) = mean.rank_imbalance;
    slot_imbalance.mutable_at(l) = mean.slot_imbalance;
    rank_cv.mutable_at(l) = mean.rank_cv;
    slot_cv.mutable_at(l) = mean.slot_cv;
    hottest_rank.mutable_at(l) = last.hottest_rank;
    hottest_expert.mutable_at(l) = last.hottest_expert;
    share.mutable_at(l) = last.hottest_expert_share;
    dropped.mutable_at(l) = mean.dropped;
  }
  py::dict table;
  table["layer"] = layer;
  table["moe_layer"] = moe_layer;
  table["rank_imbalance"] = rank_imbalance;
  table["slot_imbalance"] = slot_imbalance;
  table["rank_cv"] = rank_cv;
  table["slot_cv"] = slot_cv;
  table["hottest_rank"] = hottest_rank;
  table["hottest_expert"] = hottest_expert;
  table["hottest_expert_share"] = share;
  table["dropped"] = dropped;
  py::dict about;
  about["model"] = w.model.name;
  about["experts"] = w.shape.experts;
  about["top_k"] = w.shape.top_k;
  about["moe_layers"] = w.shape.moe_layers;
  about["routing"] = o.routing_model;
  about["placement"] = o.placement_policy;
  about["redundant"] = o.placement.redundant;
  about["split"] = o.replica_split;
  about["eplb_statistics"] = o.eplb_statistics;
  about["ep"] = o.ep;
  about["tokens"] = o.tokens;
  about["first_step"] = o.step;
  about["steps"] = o.steps;
  about["seed"] = o.seed;
  about["capacity_factor"] = o.capacity_factor;
  py::dict d;
  d["table"] = table;
  d["about"] = about;
  return d;
}

}  // namespace

void bind_what_if(py::module_& m) {
  m.def("flag_defaults", &flag_defaults, py::arg("command"));
  m.def("gemm", &gemm, py::arg("args"));
  m.def("comm", &comm, py::arg("args"));
  m.def("routing", &routing, py::arg("args"));
}

}  // namespace moesim::python
