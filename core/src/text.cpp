// text.cpp: the model's pictures as plain text (table, logical tile, physical banks) and the
// whole analysis as JSON (docs/SCENARIO.md, "Analysis output").
//
// [SECTION] Small formatting helpers
// [SECTION] verdict()
// [SECTION] render_table()
// [SECTION] render_tile(): the array as the kernel declares it
// [SECTION] render_banks(): the same accesses placed by address, one column per bank
// [SECTION] analysis_to_json()
#include "bankviz/text.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <sstream>

#include "bankviz/copy_h200.h"
#include "scenario_json.h"
#include "text_pad.h"

namespace bankviz {

namespace {

// [SECTION] Small formatting helpers

std::string plural(int64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// Bit b -> bank b, ascending.
std::vector<int> banks_list(uint32_t banks) {
  std::vector<int> out;
  for (uint32_t x = banks; x; x &= x - 1) out.push_back(std::countr_zero(x));
  return out;
}

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

bool valid_warp_step(const Analysis& a, int step, int warp) {
  return step >= 0 && step < static_cast<int>(a.warps.size()) && warp >= 0 &&
         warp < static_cast<int>(a.warps[static_cast<size_t>(step)].size());
}

// The lanes shown: every active lane, or only those one wavefront serves.
uint32_t shown_lanes(const WarpStep& ws, int wavefront) {
  if (wavefront < 0) return ws.access.mask;
  if (wavefront >= static_cast<int>(ws.result.detail.size())) return 0;
  return ws.result.detail[static_cast<size_t>(wavefront)].lanes & ws.access.mask;
}

std::string view_title(const Analysis& a, int step, int warp, int wavefront) {
  const WarpStep& ws = a.warps[static_cast<size_t>(step)][static_cast<size_t>(warp)];
  std::string t = "step " + std::to_string(step) + ": " + a.steps[static_cast<size_t>(step)].label +
                  " | warp " + std::to_string(warp);
  if (wavefront < 0) {
    t += " | all " + plural(ws.result.wavefronts, "wavefront");
  } else {
    t += " | wavefront " + std::to_string(wavefront + 1) + " of " +
         std::to_string(ws.result.wavefronts);
  }
  return t + "\n";
}

// A warp that does nothing in this step (sync, all lanes guarded off, out of range).
std::string no_access_text(const Analysis& a, int step, int warp) {
  if (!valid_warp_step(a, step, warp)) {
    return "no such step/warp: step " + std::to_string(step) + " of " +
           std::to_string(a.steps.size()) + ", warp " + std::to_string(warp) + " of " +
           std::to_string(a.warp_count()) + "\n";
  }
  const StepInfo& info = a.steps[static_cast<size_t>(step)];
  if (info.kind == StepKind::Sync) {
    return "step " + std::to_string(step) +
           ": __syncthreads(): a barrier, no shared-memory access\n";
  }
  return view_title(a, step, warp, -1) + "no active lanes: this warp does not access the tile\n";
}

// Per cell of a picture: the lowest lane that touches it and how many lanes do.
struct Touch {
  int lane = -1;
  int count = 0;
  void add(int l) {
    if (lane < 0 || l < lane) lane = l;
    ++count;
  }
  std::string cell(size_t width) const {
    // "12" or "12+" when several lanes share the element/word (a broadcast or multicast).
    std::string s = std::to_string(lane);
    if (count > 1) s += "+";
    return pad_left(s, width);
  }
};

}  // namespace

// [SECTION] verdict()

namespace {

// Why a conflict-free request still takes several wavefronts. When wavefront k serves only lanes
// of the k-th half (quarter) of the warp, the hardware split the request by half- (quarter-)
// warps; otherwise just say the count is the ideal (e.g. Kepler's 64 words straddling two
// 64-word segments).
std::string split_words(const AccessResult& r) {
  auto split_by = [&](int parts) {
    if (r.ideal != parts || static_cast<int>(r.detail.size()) != parts) return false;
    const int lanes = kWarpSize / parts;
    for (int k = 0; k < parts; ++k) {
      const uint32_t part = ((1u << lanes) - 1u) << (k * lanes);
      if ((r.detail[static_cast<size_t>(k)].lanes & ~part) != 0) return false;
    }
    return true;
  };
  if (split_by(2)) return "each half-warp is one wavefront";
  if (split_by(4)) return "each quarter-warp is one wavefront";
  return std::to_string(r.ideal) + " wavefronts is the ideal for this request";
}

// The warp of executed step `step` whose verdict stands for the step: the highest conflict
// degree, then the most wavefronts (the first on ties); nullptr when no warp has an active lane.
const WarpStep* worst_warp(const Analysis& a, size_t step) {
  const WarpStep* worst = nullptr;
  for (const WarpStep& ws : a.warps[step]) {
    if (ws.access.mask == 0) continue;
    if (!worst || ws.result.degree() > worst->result.degree() ||
        (ws.result.degree() == worst->result.degree() &&
         ws.result.wavefronts > worst->result.wavefronts)) {
      worst = &ws;
    }
  }
  return worst;
}

}  // namespace

std::string verdict(const AccessResult& r, int width) {
  if (r.wavefronts == 0) return "no active lanes: 0 wavefronts";
  const std::string access = width > 0 ? std::to_string(width) + "-byte access: " : "";
  if (r.wavefronts <= r.ideal) {
    if (r.ideal <= 1) return "conflict-free: 1 wavefront";
    if (width > 0) {
      return access + plural(r.wavefronts, "wavefront") + ", conflict-free (" + split_words(r) +
             ")";
    }
    return "conflict-free: " + plural(r.wavefronts, "wavefront") + " (" + split_words(r) + ")";
  }
  return (r.ideal > 1 ? access : std::string()) + std::to_string(r.degree()) +
         "-way bank conflict: " + plural(r.wavefronts, "wavefront") + " where " +
         std::to_string(r.ideal) + " would do";
}

std::string verdict(const AccessResult& r) {
  return verdict(r, 0);
}

std::string verdict(const AccessResult& r, const OpSpec& op) {
  if (!is_matrix_op(op.op) && op.op != Op::CpAsync) return verdict(r, op.width);
  const std::string name = op_spec_name(op) + ": ";
  if (r.wavefronts == 0) return name + "no active lanes: 0 wavefronts";
  if (r.wavefronts <= r.ideal) {
    const std::string why = is_matrix_op(op.op) ? "each 8x8 matrix is one "
                                                  "wavefront"
                                                : split_words(r);
    return name + plural(r.wavefronts, "wavefront") + ", conflict-free" +
           (r.ideal > 1 ? " (" + why + ")" : std::string());
  }
  return name + std::to_string(r.degree()) +
         "-way bank conflict: " + plural(r.wavefronts, "wavefront") + " where " +
         std::to_string(r.ideal) + " would do";
}

// [SECTION] render_table()

std::string render_table(const Analysis& a) {
  constexpr int kMaxWarpColumns = 8;
  std::ostringstream o;
  const Arch& arch = *a.arch;
  o << arch.name << ": " << arch.banks << " banks x " << arch.bank_bytes << " B ("
    << provenance_summary(arch) << "), block " << a.scenario.block[0] << "x" << a.scenario.block[1]
    << "x" << a.scenario.block[2] << " = " << plural(a.scenario.threads(), "thread") << " in "
    << plural(a.warp_count(), "warp") << "\n";
  o << "cells: wavefronts/ideal per warp; per req = wavefronts per warp instruction (ncu's\n"
       "transactions per request); verdict for the worst warp\n\n";

  const int shown = std::min(a.warp_count(), kMaxWarpColumns);
  size_t label_w = 5;
  for (const StepInfo& s : a.steps)
    label_w = std::max(label_w, std::min<size_t>(s.label.size(), 44));
  std::vector<std::string> cells;
  auto cut = [&](const std::string& s) {
    return s.size() <= label_w ? s : s.substr(0, label_w - 3) + "...";
  };

  o << pad_left("#", 3) << "  " << pad_right("step", label_w);
  for (int w = 0; w < shown; ++w) o << pad_left('w' + std::to_string(w), 6);
  o << pad_left("total", 10) << pad_left("per req", 9) << "  verdict\n";

  int total_wf = 0, total_ideal = 0;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const StepInfo& s = a.steps[i];
    o << pad_left(std::to_string(i), 3) << "  ";
    if (s.kind == StepKind::Sync) {
      o << cut(s.label) << "\n";
      continue;
    }
    o << pad_right(cut(s.label), label_w);
    const std::vector<WarpStep>& row = a.warps[i];
    const int instructions = a.step_instructions(static_cast<int>(i));
    const WarpStep* worst = worst_warp(a, i);
    for (int w = 0; w < shown; ++w) {
      const WarpStep& ws = row[static_cast<size_t>(w)];
      o << pad_left(ws.access.mask == 0 ? "-"
                                        : std::to_string(ws.result.wavefronts) + "/" +
                                              std::to_string(ws.result.ideal),
                    6);
    }
    const int wf = a.step_wavefronts(static_cast<int>(i));
    const int ideal = a.step_ideal(static_cast<int>(i));
    total_wf += wf;
    total_ideal += ideal;
    o << pad_left(std::to_string(wf) + "/" + std::to_string(ideal), 10)
      << pad_left(instructions > 0 ? fixed2(static_cast<double>(wf) / instructions) : "-", 9)
      << "  ";
    if (worst) {
      o << "w" << worst->warp << ": " << verdict(worst->result, a.step_op(static_cast<int>(i)));
    } else {
      o << "no active lanes";
    }
    o << "\n";
  }
  o << "     " << pad_right("total", label_w) << std::string(static_cast<size_t>(shown) * 6, ' ')
    << pad_left(std::to_string(total_wf) + "/" + std::to_string(total_ideal), 10) << "\n";
  if (shown < a.warp_count()) {
    o << "(warps " << shown << "-" << a.warp_count() - 1
      << " not shown as columns; they are in the totals and in --json)\n";
  }
  // cp.async's figures are its shared write's, paced by its global source: which source each
  // step's figures assume, said where the user sees them (docs/CPASYNC_SOURCE.md).
  std::string given, assumed, spread;
  std::vector<bool> inexact(a.scenario.steps.size(), false);  // a warp's source beyond 2 MiB
  std::vector<int> passes(a.scenario.steps.size(), 0);        // the most global passes
  std::vector<int64_t> rule(passes.size(), 0), one(passes.size(), 0);  // their wavefronts
  for (size_t e = 0; e < a.steps.size(); ++e)
    if (a.steps[e].kind == StepKind::CpAsync)
      for (const WarpStep& ws : a.warps[e]) {
        const size_t i = static_cast<size_t>(a.steps[e].step);
        if (!copy_source_exact(ws.access)) inexact[i] = true;
        if (!ws.access.mask) continue;
        passes[i] = std::max(passes[i], copy_global_passes(ws.access));
        rule[i] += ws.result.wavefronts;
        one[i] += copy_wavefronts_one_pass(*a.arch, ws.access);
      }
  std::string several;
  for (size_t i = 0; i < a.scenario.steps.size(); ++i) {
    const Step& st = a.scenario.steps[i];
    if (st.kind != StepKind::CpAsync) continue;
    std::string& list = st.source.empty() ? assumed : given;
    if (!list.empty()) list += "; ";
    const std::string name = st.label.empty() ? st.kind_text() + ' ' + st.index : st.label;
    list += name;
    if (!st.source.empty()) list += std::string(" from chunk ") + st.source;
    if (inexact[i]) spread += (spread.empty() ? std::string() : std::string("; ")) + name;
    if (std::string h200 = copy_passes_caveat(passes[i], rule[i], one[i]); !h200.empty())
      several += (several.empty() ? std::string() : std::string("; ")) + name + ": " + h200;
  }
  if (!assumed.empty())
    o << "cp.async source: coalesced, assumed (lane i copies the i-th chunk of one contiguous\n"
         "row; give a step a \"source\" for another): "
      << assumed << "\n";
  if (!given.empty()) o << "cp.async source: as given: " << given << "\n";
  if (!spread.empty())
    o << "cp.async source beyond 2 MiB: the L1's set hash there was not measured, so the\n"
         "hardware may count more or fewer wavefronts than these: "
      << spread << "\n";
  if (!several.empty()) o << "cp.async global passes: " << several << "\n";
  if (!a.issues.empty()) {
    o << "\nissues:\n";
    for (const Issue& is : a.issues) o << "  - " << is.message << "\n";
  }
  return o.str();
}

// [SECTION] render_tile(): the array as the kernel declares it

std::string render_tile(const Analysis& a, int step, int warp, int wavefront) {
  if (!valid_warp_step(a, step, warp) ||
      a.steps[static_cast<size_t>(step)].kind == StepKind::Sync) {
    return no_access_text(a, step, warp);
  }
  const StepInfo& info = a.steps[static_cast<size_t>(step)];
  const WarpStep& ws = a.warps[static_cast<size_t>(step)][static_cast<size_t>(warp)];
  const TileDecl& tile = a.scenario.tiles[static_cast<size_t>(info.tile)];
  const uint32_t lanes = shown_lanes(ws, wavefront);

  std::map<int64_t, Touch> touched;  // element -> lanes
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (lanes >> lane & 1u) touched[ws.element[static_cast<size_t>(lane)]].add(lane);
  }

  // Display rows: (label, first element, length). 2-D/3-D rows are the declared rows (the
  // innermost dimension with its padding); a 1-D array is wrapped every 32 elements.
  struct Row {
    std::string label;
    int64_t first, length;
    int64_t slice;  // 3-D: the outermost subscript; -1 otherwise
  };
  std::vector<Row> rows;
  const std::vector<int64_t> pd = tile.padded_dims();
  if (pd.size() == 1) {
    const int64_t n = pd[0];
    const int64_t w = std::min<int64_t>(n, 32);
    for (int64_t f = 0; f < n; f += w)
      rows.push_back({"[" + std::to_string(f) + "]", f, std::min(w, n - f), -1});
  } else if (pd.size() == 2) {
    for (int64_t r = 0; r < pd[0]; ++r)
      rows.push_back({"[" + std::to_string(r) + "]", r * pd[1], pd[1], -1});
  } else {
    for (int64_t k = 0; k < pd[0]; ++k) {
      for (int64_t r = 0; r < pd[1]; ++r) {
        rows.push_back({'[' + std::to_string(k) + "][" + std::to_string(r) + ']',
                        (k * pd[1] + r) * pd[2], pd[2], k});
      }
    }
  }

  // Large tiles: only the rows this warp touches, with one row of context either side.
  constexpr size_t kMaxRows = 32;
  const bool clipped = rows.size() > kMaxRows;
  std::vector<bool> keep(rows.size(), !clipped);
  if (clipped) {
    for (size_t i = 0; i < rows.size(); ++i) {
      auto it = touched.lower_bound(rows[i].first);
      if (it != touched.end() && it->first < rows[i].first + rows[i].length) {
        for (size_t j = (i == 0 ? 0 : i - 1); j <= std::min(rows.size() - 1, i + 1); ++j)
          keep[j] = true;
      }
    }
  }

  int64_t max_len = 0;
  size_t label_w = 0;
  for (const Row& r : rows) {
    max_len = std::max(max_len, r.length);
    label_w = std::max(label_w, r.label.size());
  }
  const size_t cw = std::max<size_t>(3, std::to_string(max_len - 1).size() + 1);

  std::ostringstream o;
  o << view_title(a, step, warp, wavefront);
  o << tile.declaration() << "\n";
  if (tile.cute)  // the grid is the layout's coordinates, not the flat array
    o << "layout " << tile.layout_text() << ": a cell is a coordinate (row, column)\n";
  o << "cells: the lane that touches the element ('+': more lanes share it), '.' untouched, '#' "
       "padding\n";
  if (clipped) {
    o << "(large tile: only the rows this warp touches are shown, with one row of context)\n";
  }
  o << std::string(label_w, ' ') << " ";
  for (int64_t c = 0; c < max_len; ++c) o << pad_left(std::to_string(c), cw);
  o << "\n";
  size_t skipped = 0;
  int64_t last_slice = -2;
  auto flush_skipped = [&] {
    if (skipped > 0)
      o << pad_right("...", label_w) << " (" << plural(static_cast<int64_t>(skipped), "row")
        << " untouched)\n";
    skipped = 0;
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!keep[i]) {
      ++skipped;
      continue;
    }
    flush_skipped();
    const Row& r = rows[i];
    if (r.slice >= 0 && r.slice != last_slice) {
      o << "slice " << tile.name << "[" << r.slice << "]:\n";
      last_slice = r.slice;
    }
    o << pad_right(r.label, label_w) << " ";
    for (int64_t c = 0; c < r.length; ++c) {
      const int64_t e = r.first + c;
      auto it = touched.find(e);
      if (it != touched.end()) {
        o << it->second.cell(cw);
      } else {
        o << pad_left(tile.is_padding(e) ? "#" : ".", cw);
      }
    }
    o << "\n";
  }
  flush_skipped();
  return o.str();
}

// [SECTION] render_banks(): the same accesses placed by address, one column per bank

std::string render_banks(const Analysis& a, int step, int warp, int wavefront) {
  if (!valid_warp_step(a, step, warp) ||
      a.steps[static_cast<size_t>(step)].kind == StepKind::Sync) {
    return no_access_text(a, step, warp);
  }
  const Arch& arch = *a.arch;
  const WarpStep& ws = a.warps[static_cast<size_t>(step)][static_cast<size_t>(warp)];
  const AccessResult& r = ws.result;

  // bank word -> lanes, as serve() placed them. A line is one row of all banks
  // (Arch::line_bytes_shown(): 128 B on every GPU since Fermi, 64 B on cc 1.x, 256 B in
  // Kepler's 8-byte mode). Which banks conflict is serve()'s record, never decided here.
  std::map<uint32_t, Touch> words;
  std::vector<int> per_bank(static_cast<size_t>(arch.banks), 0);  // distinct words shown
  bool extra = false;  // the shown wavefront is an extra pass without words of its own
  for (size_t k = 0; k < r.detail.size(); ++k) {
    if (wavefront >= 0 && static_cast<int>(k) != wavefront) continue;
    extra = extra || r.detail[k].extra;
    for (const LaneWord& lw : r.detail[k].words) {
      Touch& t = words[lw.word];
      if (t.count == 0) ++per_bank[static_cast<size_t>(lw.bank)];
      t.add(lw.lane);
    }
  }
  std::vector<uint32_t> lines;
  for (const auto& [word, t] : words) {  // ascending words: ascending lines
    const uint32_t line = arch.line_of_word(word);
    if (lines.empty() || lines.back() != line) lines.push_back(line);
  }
  const int64_t line_bytes = arch.line_bytes_shown();

  std::ostringstream o;
  o << view_title(a, step, warp, wavefront);
  o << arch.name << ": " << arch.banks << " banks x " << arch.bank_bytes << " B; one row per "
    << line_bytes << "-byte line (only lines this warp touches)\n";
  o << "cells: the lane using the bank word ('+': more lanes share the word), '.' unused\n"
       "passes: wavefronts each bank serves; '!': a bank needing more passes than the ideal\n";
  constexpr size_t kLabel = 10, kCell = 3;
  o << pad_right("bank", kLabel);
  for (int b = 0; b < arch.banks; ++b) o << pad_left(std::to_string(b), kCell);
  o << "\n";
  for (uint32_t line : lines) {
    o << pad_right("line " + std::to_string(line), kLabel);
    for (int b = 0; b < arch.banks; ++b) {
      auto it = words.find(arch.word_at(line, b));
      o << (it == words.end() ? pad_left(".", kCell) : it->second.cell(kCell));
    }
    o << "  bytes " << int64_t{line} * line_bytes << "-" << (int64_t{line} + 1) * line_bytes - 1
      << "\n";
  }
  if (extra) {
    o << "(an extra pass the rule charges without a word of its own: the guide's \"add 1\" for "
         "128-bit accesses, drawn on the busiest banks)\n";
  }
  o << pad_right("words", kLabel);
  for (int b = 0; b < arch.banks; ++b)
    o << pad_left(std::to_string(per_bank[static_cast<size_t>(b)]), kCell);
  o << "\n" << pad_right("passes", kLabel);
  for (int b = 0; b < arch.banks; ++b)
    o << pad_left(std::to_string(r.bank_passes[static_cast<size_t>(b)]), kCell);
  std::string marks = pad_right("conflict", kLabel);
  for (int b = 0; b < arch.banks; ++b) marks += pad_left(r.conflicted(b) ? "!" : "", kCell);
  marks.erase(marks.find_last_not_of(' ') + 1);
  o << "\n" << marks << "\n";
  if (wavefront < 0) o << verdict(r, a.step_op(step)) << "\n";
  return o.str();
}

// [SECTION] analysis_to_json()

namespace {

// dump(2) of a value written at `depth` inside a larger document: the same text the whole
// document's dump(2) would hold there. Invalid UTF-8 (a label from the command line) is replaced,
// never thrown.
std::string dump_at(const detail::Json& v, int depth) {
  std::string text = v.dump(2, ' ', false, detail::Json::error_handler_t::replace);
  const std::string indent(static_cast<size_t>(depth) * 2, ' ');
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

detail::Json step_json(const Analysis& a, size_t i) {
  using detail::Json;
  const Arch& arch = *a.arch;
  const StepInfo& s = a.steps[i];
  Json js;
  js["index"] = i;
  js["step"] = s.step;
  js["iteration"] = s.iteration;
  js["kind"] = step_kind_name(s.kind);
  js["tile"] = s.tile >= 0 ? Json(a.scenario.tiles[static_cast<size_t>(s.tile)].name) : Json();
  js["label"] = s.label;
  if (s.kind == StepKind::CpAsync) {  // which global source its figures assume
    const std::string& src = a.scenario.steps[static_cast<size_t>(s.step)].source;
    js["source"] = src.empty() ? Json("coalesced (assumed)") : Json(src);
  }
  Json warps = Json::array();
  if (s.kind != StepKind::Sync) {
    for (const WarpStep& ws : a.warps[i]) {
      Json jw;
      jw["warp"] = ws.warp;
      jw["mask"] = ws.access.mask;
      jw["width"] = ws.access.width;
      jw["wavefronts"] = ws.result.wavefronts;
      jw["ideal"] = ws.result.ideal;
      jw["degree"] = ws.result.degree();
      jw["conflicts"] = ws.result.conflicts();
      jw["verdict"] = verdict(ws.result, ws.access.width);
      // cp.async: false where a lane's source is at or above 2 MiB (the L1's set hash there
      // was not measured: the hardware may count more or fewer).
      if (s.kind == StepKind::CpAsync) jw["source_exact"] = copy_source_exact(ws.access);
      jw["bank_passes"] = std::vector<int>(ws.result.bank_passes.begin(),
                                           ws.result.bank_passes.begin() + arch.banks);
      jw["conflict_banks"] = banks_list(ws.result.conflict_banks);
      jw["busiest_bank"] = ws.result.busiest_bank;
      Json lanes = Json::array();
      for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(ws.access.mask >> lane & 1u)) continue;
        lanes.push_back(Json{{"lane", lane},
                             {"element", ws.element[static_cast<size_t>(lane)]},
                             {"address", ws.access.addr[static_cast<size_t>(lane)]}});
      }
      jw["lanes"] = std::move(lanes);
      Json detail = Json::array();
      for (const Wavefront& wf : ws.result.detail) {
        Json lanes_served = Json::array();
        for (int lane = 0; lane < kWarpSize; ++lane) {
          if (wf.lanes >> lane & 1u) lanes_served.push_back(lane);
        }
        Json words = Json::array();
        for (const LaneWord& lw : wf.words) {
          words.push_back(Json::array({lw.lane, lw.bank, lw.word, lw.shared ? 1 : 0}));
        }
        Json jwf{{"lanes", std::move(lanes_served)},
                 {"words", std::move(words)},
                 {"banks", banks_list(wf.banks)}};
        if (wf.extra) jwf["extra"] = true;
        detail.push_back(std::move(jwf));
      }
      jw["detail"] = std::move(detail);
      warps.push_back(std::move(jw));
    }
  }
  const int wf = a.step_wavefronts(static_cast<int>(i));
  js["wavefronts"] = wf;
  js["ideal"] = a.step_ideal(static_cast<int>(i));
  js["instructions"] = a.step_instructions(static_cast<int>(i));
  js["per_request"] = a.step_per_request(static_cast<int>(i));
  js["warps"] = std::move(warps);
  return js;
}

}  // namespace

std::string describe_analysis(const Analysis& a) {
  // Each scenario step once, at its worst executed instance (a loop's iterations are one step).
  constexpr size_t kMostSteps = 8;
  std::vector<int> shown;  // executed step per scenario step, in program order
  std::map<int, size_t> slot;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    if (a.steps[i].kind == StepKind::Sync || !worst_warp(a, i)) continue;
    auto [it, fresh] = slot.emplace(a.steps[i].step, shown.size());
    if (fresh) {
      shown.push_back(static_cast<int>(i));
    } else if (a.step_per_request(static_cast<int>(i)) > a.step_per_request(shown[it->second])) {
      shown[it->second] = static_cast<int>(i);
    }
  }
  std::string out = "The model on " + std::string(a.arch ? a.arch->name : "this GPU") + ": ";
  if (shown.empty()) out += "no step touches shared memory.";
  for (size_t k = 0; k < shown.size() && k < kMostSteps; ++k) {
    const size_t i = static_cast<size_t>(shown[k]);
    out += (k ? "; " : "") + a.steps[i].label + ": " +
           verdict(worst_warp(a, i)->result, a.step_op(static_cast<int>(i)));
  }
  if (shown.size() > kMostSteps)
    out += "; and " + plural(static_cast<int>(shown.size() - kMostSteps), "more step");
  if (!shown.empty()) out += ".";
  for (const std::string& w : headline_warnings(a)) out += " " + w + ".";
  return out;
}

std::vector<std::string> headline_warnings(const Analysis& a, int step) {
  std::vector<std::string> out;
  if (a.hazards.racing_accesses > 0) {
    std::string steps;
    bool here = false;
    int listed = 0;
    for (size_t i = 0; i < a.hazards.racing.size(); ++i) {
      bool any = false;
      for (uint32_t lanes : a.hazards.racing[i]) any = any || lanes != 0;
      if (!any) continue;
      here = here || static_cast<int>(i) == step;
      if (listed++ < 4) steps += (steps.empty() ? "" : ", ") + std::to_string(i);
    }
    if (listed > 4) steps += ", ...";
    out.push_back("RACE: " + std::to_string(a.hazards.racing_accesses) +
                  " lane accesses race (a __syncthreads() is missing); " +
                  (listed == 1 ? "step " : "steps ") + steps + (here ? " (this step)" : ""));
  }
  if (a.out_of_bounds > 0) {
    bool here = false;
    for (const Issue& i : a.issues) here = here || (i.step == step && step >= 0 && i.lane >= 0);
    out.push_back("OUT OF BOUNDS: " + std::to_string(a.out_of_bounds) +
                  " lane accesses fall outside the tile (undefined behaviour in CUDA; left out)" +
                  (here ? " (this step)" : ""));
  }
  return out;
}

void write_analysis_json(const Analysis& a, std::ostream& out) {
  using detail::Json;
  const Arch& arch = *a.arch;
  Json rules = Json::array();
  for (const Rule& rule : arch.rules) {
    rules.push_back(Json{{"provenance", provenance_name(rule.provenance)},
                         {"text", std::string(rule.text)},
                         {"where", std::string(rule.where)}});
  }
  const Json jarch{{"id", std::string(arch.id)},
                   {"name", std::string(arch.name)},
                   {"sm", std::string(arch.sm)},
                   {"banks", arch.banks},
                   {"bank_bytes", arch.bank_bytes},
                   {"line_bytes", arch.line_bytes},
                   {"half_warp_unit", arch.half_warp_unit},
                   {"measured", arch.measured},
                   {"source", std::string(arch.source)},
                   {"rules", std::move(rules)}};
  // Member by member, one step at a time: the largest scenario's JSON (hundreds of MB) is
  // never held whole.
  out << "{\n  \"arch\": " << dump_at(jarch, 1);
  out << ",\n  \"scenario\": " << dump_at(detail::scenario_to_json_value(a.scenario), 1);
  out << ",\n  \"threads\": " << a.scenario.threads();
  out << ",\n  \"warps\": " << a.warp_count();
  out << ",\n  \"steps\": [";
  for (size_t i = 0; i < a.steps.size() && out; ++i)  // a closed pipe: stop writing
    out << (i ? ",\n    " : "\n    ") << dump_at(step_json(a, i), 2);
  out << (a.steps.empty() ? "]" : "\n  ]");
  out << ",\n  \"totals\": "
      << dump_at(Json{{"wavefronts", a.total_wavefronts()}, {"ideal", a.total_ideal()}}, 1);
  // Every racing pair of steps the hazard model names (hazard.h), each with its example.
  Json named = Json::array();
  auto access = [&](const AccessRef& r) {
    return Json{{"executed", r.step},
                {"step", a.steps[static_cast<size_t>(r.step)].step},
                {"warp", r.warp},
                {"lane", r.lane}};
  };
  for (const Hazard& h : a.hazards.examples)
    named.push_back(Json{{"kind", hazard_kind_name(h.kind)},
                         {"first", access(h.first)},
                         {"second", access(h.second)},
                         {"lanes", h.lanes},
                         {"message", h.message}});
  out << ",\n  \"races\": "
      << dump_at(Json{{"racing_accesses", a.hazards.racing_accesses},
                      {"pairs", a.hazards.pairs},
                      {"named", std::move(named)}},
                 1);
  Json issues = Json::array();
  for (const Issue& is : a.issues) {
    issues.push_back(
        Json{{"step", is.step}, {"warp", is.warp}, {"lane", is.lane}, {"message", is.message}});
  }
  out << ",\n  \"issues\": " << dump_at(issues, 1) << "\n}\n";
}

std::string analysis_to_json(const Analysis& a) {
  std::ostringstream out;
  write_analysis_json(a, out);
  return out.str();
}

}  // namespace bankviz
