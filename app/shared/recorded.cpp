// recorded.cpp: recorded measurements, their identity, reading and lookup (recorded.h).
#include "recorded.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "bankviz/arch.h"
#include "bankviz/io.h"
#include "data_dir.h"
#include "gpu_protocol.h"  // short_gpu_name
#include "run_json.h"

namespace bankviz {

using nlohmann::json;

std::string scenario_identity(const Scenario& s) {
  Scenario c = s;
  c.name = "x";
  c.title.clear();
  c.description.clear();
  c.source.clear();
  c.open_step = -1;
  const std::string text = scenario_to_json(c);
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

namespace {

std::string key_of(const std::string& id, RunMode mode) {
  return id + ' ' + run_mode_name(mode);
}

}  // namespace

std::optional<RecordedSet> parse_recorded_set(std::string_view text, std::string* error) {
  ParsedLine p = parse_protocol_line(text);  // the depth check, then the parse
  if (!p.value) {
    *error = "not a recorded set: " + p.error;
    return std::nullopt;
  }
  json& j = *p.value;
  auto str = [&](const json& o, const char* k) {
    return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
  };
  if (str(j, "format") != kRecordedFormat) {
    *error = std::string("not a recorded set (\"format\" is not \"") + kRecordedFormat + "\")";
    return std::nullopt;
  }
  if (!j.contains("format_version") || !j["format_version"].is_number_integer() ||
      j["format_version"].get<int64_t>() != kRecordedFormatVersion) {
    *error = "a recorded set of another format version (this bankviz reads version " +
             std::to_string(kRecordedFormatVersion) + ")";
    return std::nullopt;
  }
  RecordedSet set;
  set.bankviz = str(j, "bankviz");
  set.date = str(j, "date");
  if (!j.contains("rules_version") || !j["rules_version"].is_number_integer() ||
      !j.contains("device") || !j["device"].is_object() || set.date.empty() ||
      !j.contains("runs") || !j["runs"].is_array()) {
    *error = "a recorded set without its rules_version, device, date or runs";
    return std::nullopt;
  }
  set.rules_version =
      static_cast<int>(std::clamp<int64_t>(j["rules_version"].get<int64_t>(), 0, 1 << 20));
  const json& d = j["device"];
  set.device = str(d, "name");
  set.sm = str(d, "sm");
  if (d.contains("sm_count") && d["sm_count"].is_number_integer())
    set.sm_count = static_cast<int>(std::clamp<int64_t>(d["sm_count"].get<int64_t>(), 0, 1 << 20));
  if (d.contains("clock_mhz") && d["clock_mhz"].is_number())
    set.clock_mhz = d["clock_mhz"].get<double>();
  if (d.contains("driver_cuda") && d["driver_cuda"].is_number_integer())
    set.driver_cuda =
        static_cast<int>(std::clamp<int64_t>(d["driver_cuda"].get<int64_t>(), 0, 1 << 30));
  if (j.contains("complete") && j["complete"].is_boolean())
    set.complete = j["complete"].get<bool>();
  if (set.device.empty()) {
    *error = "a recorded set that names no device";
    return std::nullopt;
  }
  size_t index = 0;
  for (json& r : j["runs"]) {
    const std::string where = "runs[" + std::to_string(index++) + "]";
    const std::string id = str(r, "id"), mode = str(r, "mode");
    const std::optional<RunMode> m = parse_run_mode(mode);
    if (id.size() != 16 || !m || !r.contains("result")) {
      *error = where + ": no id of 16 hex digits, mode or result";
      return std::nullopt;
    }
    std::string why;
    if (!run_result_from_json(r["result"], &why)) {
      *error = where + ": " + why;
      return std::nullopt;
    }
    set.runs[key_of(id, *m)] = std::move(r["result"]);  // the tree moved, not copied
    set.names[id] = str(r, "name");
  }
  if (j.contains("experiments") && j["experiments"].is_array())
    set.experiments = std::move(j["experiments"]);
  return set;
}

namespace {

// The run's identity and mode from the start of its line as recorded_set_text writes it,
// {"id":"<16 hex>","mode":"<mode>",...}; empty when it does not start so.
std::string indexed_key(std::string_view line) {
  static constexpr std::string_view kId = "{\"id\":\"", kMode = "\",\"mode\":\"";
  if (line.substr(0, kId.size()) != kId || line.size() < kId.size() + 16 + kMode.size()) return {};
  const std::string_view id = line.substr(kId.size(), 16);
  if (id.find_first_not_of("0123456789abcdef") != std::string_view::npos ||
      line.substr(kId.size() + 16, kMode.size()) != kMode)
    return {};
  const std::string_view rest = line.substr(kId.size() + 16 + kMode.size());
  const std::optional<RunMode> m = parse_run_mode(std::string(rest.substr(0, rest.find('"'))));
  if (!m || rest.find('"') == std::string_view::npos) return {};
  return key_of(std::string(id), *m);
}

// The result of the run at [begin, end) of an indexed set's text; nullopt when it does not read
// back (the reason in *why).
std::optional<RunResult> indexed_result(const std::string& text, std::pair<size_t, size_t> at,
                                        std::string* why) {
  ParsedLine p = parse_protocol_line(std::string_view(text).substr(at.first, at.second - at.first));
  if (!p.value || !p.value->is_object() || !p.value->contains("result")) {
    *why = p.value ? "no result" : p.error;
    return std::nullopt;
  }
  return run_result_from_json((*p.value)["result"], why);
}

}  // namespace

std::optional<RecordedSet> index_recorded_set(std::string text, std::string* error) {
  static constexpr std::string_view kRuns = "\"runs\":[";
  const size_t first = text.find('\n');
  if (first == std::string::npos || first < kRuns.size() ||
      std::string_view(text).substr(first - kRuns.size(), kRuns.size()) != kRuns) {
    *error = "not laid out as measure writes it (its header on the first line)";
    return std::nullopt;
  }
  std::map<std::string, std::pair<size_t, size_t>> lines;
  size_t at = first + 1;
  std::string_view tail;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line = std::string_view(text).substr(at, end - at);
    if (!line.empty() && line.front() == ']') {
      tail = std::string_view(text).substr(at);
      break;
    }
    if (!line.empty() && line.back() == ',') line.remove_suffix(1);
    const std::string key = indexed_key(line);
    if (key.empty()) {
      *error = "line " + std::to_string(lines.size() + 2) + " is not a run as measure writes it";
      return std::nullopt;
    }
    lines[key] = {at, at + line.size()};
    at = end + 1;
  }
  // The header with no runs, read and checked as a whole set is.
  std::optional<RecordedSet> set =
      parse_recorded_set(text.substr(0, first) + std::string(tail), error);
  if (!set) return std::nullopt;
  set->lines = std::move(lines);
  set->text = std::make_shared<const std::string>(std::move(text));
  return set;
}

std::string recorded_set_text(const RecordedSet& set) {
  json runs = json::array();
  for (const auto& [key, result] : set.runs) {
    const std::string id = key.substr(0, key.find(' '));
    auto name = set.names.find(id);
    runs.push_back({{"id", id},
                    {"mode", key.substr(key.find(' ') + 1)},
                    {"name", name == set.names.end() ? std::string() : name->second},
                    {"result", result}});
  }
  json j{{"format", kRecordedFormat},
         {"format_version", kRecordedFormatVersion},
         {"bankviz", set.bankviz},
         {"rules_version", set.rules_version},
         {"date", set.date},
         {"device",
          {{"name", set.device},
           {"sm", set.sm},
           {"sm_count", set.sm_count},
           {"clock_mhz", set.clock_mhz},
           {"driver_cuda", set.driver_cuda}}},
         {"complete", set.complete},
         {"runs", runs},
         {"experiments", set.experiments}};
  // Compact, one run per line: a diff of two sets reads run by run.
  j["runs"] = json::array();
  std::string out = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string lines = "\n";
  for (size_t i = 0; i < runs.size(); ++i)
    lines += runs[i].dump(-1, ' ', false, json::error_handler_t::replace) +
             (i + 1 < runs.size() ? ",\n" : "\n");
  const std::string empty = "\"runs\":[]";
  if (size_t at = out.find(empty); at != std::string::npos)
    out.replace(at, empty.size(), "\"runs\":[" + lines + "]");
  return out + "\n";
}

std::string recorded_label(const RecordedSet& set) {
  return "measured on " + short_gpu_name(set.device) + ", recorded " + quoted_excerpt(set.date, 20);
}

std::string rules_note(const RecordedSet& set) {
  if (set.rules_version == kModelRulesVersion) return {};
  if (set.rules_version < kModelRulesVersion)
    return "recorded with the model's rules version " + std::to_string(set.rules_version) +
           "; this bankviz's model has changed since (version " +
           std::to_string(kModelRulesVersion) +
           "): the recorded figures may not match today's model; measure again "
           "(bankviz-cli measure --out FILE on a GPU)";
  return "recorded with the model's rules version " + std::to_string(set.rules_version) +
         ", newer than this bankviz's (" + std::to_string(kModelRulesVersion) + ")";
}

std::optional<RecordedRun> find_recorded_run(const std::vector<RecordedSet>& sets,
                                             const Scenario& s, RunMode mode) {
  const std::string key = key_of(scenario_identity(s), mode);
  for (const RecordedSet& set : sets) {
    std::string why;
    std::optional<RunResult> r;
    if (auto it = set.runs.find(key); it != set.runs.end())
      r = run_result_from_json(it->second, &why);  // checked when the set was read
    else if (auto line = set.lines.find(key); line != set.lines.end() && set.text)
      r = indexed_result(*set.text, line->second, &why);
    if (!r) continue;
    RecordedRun out;
    out.result = std::move(*r);
    out.set = &set;
    out.label = recorded_label(set);
    out.note = rules_note(set);
    return out;
  }
  return std::nullopt;
}

std::string figure_words(const std::string& where, double cycles, double model) {
  char buf[96];
  std::snprintf(buf, sizeof buf, ": %.2f cycles per instruction, model %.4g", cycles, model);
  return where + buf;
}

std::string side_figure_words(double cycles, const std::string& device,
                              const std::string& recorded) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f cycles/instr", cycles);
  return std::string(buf) + (recorded.empty() ? " on " + device : ", " + recorded);
}

double exposed_cycles(const RunResult& r) {
  double cycles = 0;
  for (const StepTiming& st : r.exposed.steps) cycles += st.cycles_per_instruction;
  return cycles;
}

std::string recorded_step_words(const std::vector<RecordedSet>& sets, const Scenario& s, int step) {
  const std::optional<RecordedRun> run = find_recorded_run(sets, s, RunMode::Exposed);
  if (!run) return {};
  for (const StepTiming& st : run->result.exposed.steps)
    if (st.step == step && st.cycles_per_instruction > 0)
      return figure_words(run->label, st.cycles_per_instruction, st.scenario_wavefronts);
  return {};
}

void recorded_compare_figures(const std::vector<RecordedSet>& sets, const Scenario& a,
                              const Scenario& b, CompareSlideOptions& co) {
  const std::optional<RecordedRun> ra = find_recorded_run(sets, a, RunMode::Exposed);
  const std::optional<RecordedRun> rb = find_recorded_run(sets, b, RunMode::Exposed);
  const double ca = ra ? exposed_cycles(ra->result) : 0, cb = rb ? exposed_cycles(rb->result) : 0;
  if (ca <= 0 || cb <= 0) return;
  co.measured_a = side_figure_words(ca, ra->result.device.name, ra->label);
  co.measured_b = side_figure_words(cb, rb->result.device.name, rb->label);
  co.measured_ratio = ratio_words(cb / ca);
}

std::vector<RecordedSet> load_recorded_sets(const std::string& dir,
                                            std::vector<std::string>* problems, bool indexed) {
  std::vector<RecordedSet> sets;
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    TextRead in = read_text_file(f, kMaxRecordedBytes);
    std::string why = in.error;
    if (in.text) {
      std::optional<RecordedSet> set;
      if (indexed) set = index_recorded_set(*in.text, &why);  // a copy: whole, it reads it below
      if (!set) set = parse_recorded_set(*in.text, &why);
      if (set) {
        set->path = f;
        sets.push_back(std::move(*set));
        continue;
      }
    }
    if (problems) problems->push_back(f + ": " + why);
  }
  return sets;
}

const std::vector<RecordedSet>& shipped_recorded_sets() {
  static const std::vector<RecordedSet> sets =
      load_recorded_sets(assets_dir() + "/recorded", nullptr, /*indexed=*/true);
  return sets;
}

}  // namespace bankviz
