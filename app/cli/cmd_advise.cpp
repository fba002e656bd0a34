// cmd_advise.cpp: `bankviz-cli advise`: the paddings and swizzles that make each memory step
// conflict-free, with their shared-memory cost (core/advise.h; every candidate through analyze()).
#include <iostream>
#include <memory>

#include "bankviz/advise.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

struct AdviseOptions {
  ScenarioOptions scenario;
  std::string positional;  // FILE, the same as --file FILE
  bool json = false;
};

void run_advise(AdviseOptions o) {
  if (!o.positional.empty()) {
    if (!o.scenario.file.empty() || !o.scenario.preset.empty())
      throw Exit{kExitUsage, "give the scenario once: FILE, --file or --preset"};
    o.scenario.file = o.positional;
  }
  const Scenario s = build_scenario(o.scenario);
  const Advice a = advise(s);
  if (!a.errors.empty()) {
    std::string msg = "the scenario does not analyze:";
    for (const Diagnostic& d : a.errors) msg += "\n  " + d.format();
    throw Exit{kExitFailed, msg};
  }
  std::cout << (o.json ? advice_json(s, a) : render_advice(s, a));
}

}  // namespace

void add_advise_command(CLI::App& app) {
  auto o = std::make_shared<AdviseOptions>();
  auto* cmd = app.add_subcommand(
      "advise",
      "list the paddings and swizzles that make each memory step conflict-free, ranked, with "
      "their shared-memory cost");
  add_scenario_options(*cmd, o->scenario);
  cmd->add_option("FILE", o->positional, "JSON scenario file (the same as --file)");
  cmd->add_flag("--json", o->json, "print the advice as JSON");
  cmd->callback([o] { run_advise(*o); });
}

}  // namespace bankviz::cli
