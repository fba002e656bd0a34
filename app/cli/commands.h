// commands.h: each subcommand registers itself on the app (one file per subcommand).
#pragma once

#include <CLI/CLI.hpp>

namespace bankviz::cli {

void add_analyze_command(CLI::App& app);      // cmd_analyze.cpp
void add_wavefronts_command(CLI::App& app);   // cmd_wavefronts.cpp
void add_list_commands(CLI::App& app);        // cmd_analyze.cpp: presets, archs
void add_run_commands(CLI::App& app);         // cmd_run.cpp: run, source (needs kernels)
void add_export_command(CLI::App& app);       // cmd_export.cpp: export
void add_compare_commands(CLI::App& app);     // cmd_compare.cpp: compare, sweep
void add_experiments_command(CLI::App& app);  // cmd_experiments.cpp: experiments
void add_validate_command(CLI::App& app);     // cmd_validate.cpp: validate (needs a GPU)
void add_lessons_command(CLI::App& app);      // cmd_lessons.cpp: lessons
void add_advise_command(CLI::App& app);       // cmd_advise.cpp: advise
void add_profile_command(CLI::App& app);      // cmd_profile.cpp: profile (needs a GPU)
void add_serve_command(CLI::App& app);        // cmd_serve.cpp: serve (this GPU to --gpu)
void add_measure_command(CLI::App& app);      // cmd_measure.cpp: measure (a recorded set)

}  // namespace bankviz::cli
