// validation.h: what `bankviz-cli validate` found on this machine's GPU, remembered for the app.
//
// validate writes it (a full run: every suite) to config_dir()/validated.json; the app reads it
// and labels the rule set "validated on this GPU" when the record is for the GPU it runs on and
// the model agreed with every case. A record of another GPU, or none, labels nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace bankviz {

// $XDG_CONFIG_HOME/bankviz, else ~/.config/bankviz; empty when neither variable is set. The one
// home of the directory both programs keep their files in (the app's settings too).
std::string config_dir();

struct ValidationRecord {
  std::string device;  // "NVIDIA H100 80GB HBM3"
  std::string sm;      // "sm_90"
  std::string arch;    // the rule set compared ("hopper")
  std::string date;    // "2026-11-22" (UTC)
  bool agrees = false;
  int64_t cases = 0, compared = 0, agreeing = 0;
};

// Writes the record (creating the directory). Empty on success, else why not.
std::string save_validation_record(const ValidationRecord& r);
// The record, if there is one that reads; a file that does not read is reported in *problem.
std::optional<ValidationRecord> load_validation_record(std::string* problem = nullptr);

// The label for the rule set `arch` on the GPU named `device` compiled for `sm`: "validated on
// this GPU (2026-11-22: 14432 counts agree)", "validate on this GPU found 12 of 14432 counts
// differ (2026-11-22)", or "" when the record is not about this GPU and rule set.
std::string validation_label(const std::optional<ValidationRecord>& r, const std::string& device,
                             const std::string& sm, const std::string& arch);

}  // namespace bankviz
