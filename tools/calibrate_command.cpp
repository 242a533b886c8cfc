// `moesim calibrate capture | fit | check` (docs/calibration.md).
#include <memory>
#include <vector>

#include "tools/calibrate_commands.h"

namespace moesim::tools {

Command add_calibrate_command(CLI::App& app, std::string command_line) {
  auto* cmd = app.add_subcommand("calibrate", "Measure kernels, fit a hardware profile, check it against measurements");
  cmd->require_subcommand(1);
  auto parts = std::make_shared<std::vector<Command>>(std::vector<Command>{
      add_calibrate_capture(*cmd, std::move(command_line)), add_calibrate_fit(*cmd), add_calibrate_check(*cmd)});
  return {cmd, [parts] {
            for (const auto& c : *parts)
              if (c.app->parsed()) return c.action();
            return 2;
          }};
}

}  // namespace moesim::tools
