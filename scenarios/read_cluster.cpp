// `cluster:` -> a preset's topology::ClusterConfig, or a custom fabric from a file
// (docs/scenario-reference.md, "cluster").
#include <memory>

#include "scenarios/read_sections.h"
#include "scenarios/scenario_error.h"
#include "topology/topology_yaml.h"

namespace moesim::scenarios {

const std::vector<std::string_view> kClusterKeys = {"preset",
                                                    "nodes",
                                                    "devices_per_node",
                                                    "devices_per_board",
                                                    "nic",
                                                    "scaleup",
                                                    "scaleup_efficiency",
                                                    "nic_efficiency",
                                                    "scaleup_latency",
                                                    "nic_latency",
                                                    "rails",
                                                    "spines",
                                                    "oversubscription",
                                                    "nic_messages_per_s",
                                                    "file"};

namespace {

// {file: fabric.yaml}: the fabric's own errors (file:line:column in it) follow the scenario's
// position of the file name; the NIC message rate is the only other key that applies.
ClusterSection read_fabric(const MapReader& m, const Field& file, const PathContext& paths) {
  for (const std::string_view key : kClusterKeys)
    if (key != "file" && key != "nic_messages_per_s")
      if (auto f = m.get(key)) {
        std::string message(1, '\'');
        message.append(key).append("' does not apply to a fabric file, which lists every node and link");
        f->fail_at_key(message);
      }
  const std::string path = paths.existing_file(file, "fabric file");
  ClusterSection c;
  try {
    c.fabric = std::make_shared<const topology::Cluster>(topology::load_topology_file(path));
  } catch (const topology::TopologyError& e) {
    file.fail(e.what());
  }
  c.config = c.fabric->config();
  if (auto f = m.get("nic_messages_per_s")) {
    topology::ClusterConfig cfg = c.config;
    cfg.nic_messages_per_s = positive(*f, as_rate_per_s(*f), "a rate");
    c.fabric = std::make_shared<const topology::Cluster>(c.fabric->with_config(cfg));
    c.config = cfg;
  }
  c.shape.devices = c.fabric->num_devices();
  c.shape.devices_per_node = c.config.devices_per_node;
  c.shape.text = std::to_string(c.shape.devices) + " devices (fabric " +
                 std::filesystem::path(path).filename().string() + ", " + std::to_string(c.fabric->num_nodes()) +
                 (c.fabric->num_nodes() == 1 ? " scale-up domain)" : " scale-up domains)");
  return c;
}

}  // namespace

bool preset_takes_device_ports(std::string_view preset) {
  return preset == "hgx" || preset == "xgmi" || preset == "hccs" || preset == "generic";
}

ClusterSection read_cluster(const MapReader& m, const HardwareSection& hardware, const PathContext& paths) {
  const calibration::HardwareProfile& hw = hardware.device;
  if (auto file = m.get("file")) return read_fabric(m, *file, paths);
  std::string preset = "hgx";
  if (auto f = m.get("preset")) preset = as_choice(*f, "cluster preset", names_of(topology::cluster_presets()));
  topology::ClusterConfig c = topology::cluster_preset_defaults(preset);
  // HGX servers, xGMI meshes and generic clusters are built from the device's own ports; NVL72 and
  // CloudMatrix384 racks have their own fabric figures.
  // A measured profile (moesim calibrate fit) also brings its all-to-all efficiency and latency.
  if (preset_takes_device_ports(preset)) {
    c.nic_bytes_per_s = hw.nic_bytes_per_s;
    c.scaleup_bytes_per_s = hw.scaleup_bytes_per_s;
    if (hw.scaleup_efficiency) c.scaleup_efficiency = *hw.scaleup_efficiency;
    if (hw.scaleup_latency_ns) c.scaleup_latency_ns = *hw.scaleup_latency_ns;
  } else if (hardware.dies_per_package > 1) {
    // A rack preset's ports are a package's: each die has its share.
    c.nic_bytes_per_s /= hardware.dies_per_package;
    c.scaleup_bytes_per_s /= hardware.dies_per_package;
  }

  c.nodes = as_int(m.require("nodes"), 1);
  const auto per_node = m.get("devices_per_node");
  if (per_node) c.devices_per_node = as_int(*per_node, 1);
  const auto per_board = m.get("devices_per_board");
  if (per_board) c.devices_per_board = as_int(*per_board, 0);
  // A rank per die: nodes and boards of packages hold that many dies each.
  if (hardware.dies_per_package > 1 && c.devices_per_node <= topology::kMaxClusterDevices) {
    c.dies_per_package = hardware.dies_per_package;
    c.package_link_bytes_per_s = hardware.die_link_bytes_per_s;
    c.devices_per_node *= c.dies_per_package;
    c.devices_per_board *= c.dies_per_package;
  }
  const std::int64_t devices = std::int64_t{c.nodes} * c.devices_per_node;
  if (devices > topology::kMaxClusterDevices)
    m.require("nodes").fail(std::to_string(c.nodes) + " nodes of " + std::to_string(c.devices_per_node) +
                            " devices are " + std::to_string(devices) + ", above the limit of " +
                            std::to_string(topology::kMaxClusterDevices) + " devices");
  if (c.devices_per_board > 0 && c.devices_per_node % c.devices_per_board != 0)
    (per_board ? *per_board : *per_node)
        .fail_at_key("devices_per_board " + std::to_string(c.devices_per_board) + " does not divide devices_per_node " +
                     std::to_string(c.devices_per_node));

  if (auto f = m.get("nic")) c.nic_bytes_per_s = positive(*f, as_bandwidth_bytes_per_s(*f), "a bandwidth");
  if (auto f = m.get("scaleup")) c.scaleup_bytes_per_s = positive(*f, as_bandwidth_bytes_per_s(*f), "a bandwidth");
  if (auto f = m.get("scaleup_efficiency")) c.scaleup_efficiency = as_fraction(*f);
  if (auto f = m.get("nic_efficiency")) c.nic_efficiency = as_fraction(*f);
  if (auto f = m.get("scaleup_latency")) c.scaleup_latency_ns = as_duration_ns(*f);
  if (auto f = m.get("nic_latency")) c.nic_latency_ns = as_duration_ns(*f);

  if (auto f = m.get("rails")) c.rails = as_int(*f, 0);
  if (auto f = m.get("spines")) c.spines = as_int(*f, 1);
  if (auto f = m.get("oversubscription")) {
    c.oversubscription = as_number(*f);
    if (!(c.oversubscription >= 1)) f->fail("expected a number >= 1, got " + f->node->scalar);
  }
  if (auto f = m.get("nic_messages_per_s")) c.nic_messages_per_s = positive(*f, as_rate_per_s(*f), "a rate");
  ClusterSection section;
  section.config = c;
  section.shape.devices = c.nodes * c.devices_per_node;
  section.shape.devices_per_node = c.devices_per_node;
  section.shape.text = std::to_string(section.shape.devices) + (c.dies_per_package > 1 ? " dies (" : " devices (") +
                       std::to_string(c.nodes) + (c.nodes == 1 ? " node x " : " nodes x ") +
                       std::to_string(c.devices_per_node) + ")";
  return section;
}

}  // namespace moesim::scenarios
