// panel_profile.cpp: the "your kernel" window (key K, toolbar): a user's .cu file profiled per
// source line by the hardware (profiler.h), its source shown with each line coloured by its
// excess wavefronts (the bank conflicts), the figures beside the lines that touch shared memory.
#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "shell/panels.h"
// after imgui.h (via panels.h): it needs IMGUI_API
#include "imgui_stdlib.h"
#include "platform/platform.h"
#include "platform/theme.h"
#include "profile/profiler.h"

namespace bankviz::gui {

namespace {

void form(ProfilerState& p, const Palette& pal, bool running) {
  ProfileForm& f = p.form;
  const float w = ImGui::GetFontSize() * 22;
  ImGui::SetNextItemWidth(w);
  ImGui::InputText(".cu file", &f.file);
  control_tip(
      "The CUDA source file (at most 1 MB). It is compiled by NVRTC with line info, for this GPU.");
  ImGui::SetNextItemWidth(w);
  ImGui::InputText("kernel", &f.kernel);
  control_tip("The __global__ function to launch: its C++ name (ns::name is fine).");
  // The file's kernels to pick from (read again when the path changes).
  refresh_kernels(p.kernels, f.file);
  if (!p.kernels.kernels.empty()) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::BeginCombo("##pick", "pick", ImGuiComboFlags_None)) {
      for (const std::string& k : p.kernels.kernels)
        if (ImGui::Selectable(k.c_str(), k == f.kernel)) f.kernel = k;
      ImGui::EndCombo();
    }
    control_tip("The __global__ functions of this file");
  }
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputText("grid", &f.grid);
  control_tip("Blocks: X, XxY or XxYxZ");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputText("block", &f.block);
  control_tip("Threads per block: X, XxY or XxYxZ (at most 1024)");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo("##shape", "shape", ImGuiComboFlags_None)) {
    for (const LaunchPreset& l : launch_presets()) {
      const std::string label =
          std::string(l.what) + "  (grid " + l.grid + ", block " + l.block + ")";
      if (ImGui::Selectable(label.c_str(), f.grid == l.grid && f.block == l.block)) {
        f.grid = l.grid;
        f.block = l.block;
      }
    }
    ImGui::EndCombo();
  }
  control_tip("Launch shapes to pick from; any other can be typed in grid and block");
  if (const std::string why = launch_problem(f.grid, f.block); !why.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
    ImGui::TextUnformatted(why.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::SetNextItemWidth(w);
  ImGui::InputText("arguments", &f.args);
  control_tip(
      "One per kernel parameter, in order, separated by spaces: buffer:BYTES (zeroed device "
      "memory bankviz allocates; K, M, G), int:V, uint:V, long:V, ulong:V, float:V, double:V. "
      "Example: buffer:4K int:3");
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputInt("dynamic shared bytes", &f.shared, 1024, 4096);
  f.shared = std::clamp(f.shared, 0, 1 << 30);
  control_tip("Bytes of extern __shared__ memory per block (the launch's third parameter)");
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputDouble("timeout s", &f.timeout_s, 1, 10, "%.1f");
  f.timeout_s = std::clamp(f.timeout_s, 0.1, 600.0);
  control_tip(
      "Seconds one launch may take; past it the profile is stopped (its process ends, so the "
      "GPU is free again)");
  if (!capabilities().processes) {
    // The browser compiles and runs nothing: one line, with the way to get it.
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", kBrowserCannotCompile);
    ImGui::PopTextWrapPos();
  } else if (running) {
    if (ImGui::Button("Cancel")) p.cancel = true;
    control_tip("Stop the profile: its bankviz-cli process is ended, and the GPU with it");
    ImGui::SameLine();
    ImGui::TextDisabled("profiling ... %.0f s", ImGui::GetTime() - p.started);
  } else {
    if (ImGui::Button("Profile")) {
      p.start_error.clear();
      start_profile(p, &p.start_error, ImGui::GetTime());
    }
    control_tip(
        "Compile, run on zeroed buffers and count every shared-memory instruction with the "
        "hardware's per-instruction counters (CUPTI SASS metrics), in a bankviz-cli of its own");
    ImGui::SameLine();
    ImGui::Checkbox("record", &p.form.record_gpu);
    control_tip(
        "With Profile: also record block (0,0,0) as the GPU runs it (the kernel compiled once "
        "more with its __shared__ arrays as recording proxies) and give each line the model's "
        "figures from the recorded addresses beside the hardware's (bankviz-cli profile "
        "--record-gpu, docs/RECORD.md)");
    ImGui::SameLine();
    if (ImGui::Button("Model (no GPU)")) {
      p.start_error.clear();
      p.form.model = true;
      start_profile(p, &p.start_error, ImGui::GetTime());
      p.form.model = false;
    }
    control_tip(
        "The model's figures for every shared-memory line, without a GPU: the kernel followed "
        "for one block of this launch (bankviz-cli profile --model); lines it cannot follow say "
        "why");
    ImGui::SameLine();
    if (ImGui::Button("Record (no GPU)")) {
      p.start_error.clear();
      p.form.record = true;
      start_profile(p, &p.start_error, ImGui::GetTime());
      p.form.record = false;
    }
    control_tip(
        "Run one block of this launch on the CPU (the kernel compiled by the host compiler, in "
        "a process of its own) and give every shared-memory line the model's figures from what "
        "it did: data-dependent indexes included (bankviz-cli profile --record, docs/RECORD.md)");
  }
  // The window's own problems stay in the window (issue 18), not in the main window's notice.
  if (!p.start_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(p.start_error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
}

// What the views say of the line opened: its label, how it was made, the source around it; the
// source list scrolls to it.
void note_opened(ProfilerState& p, const ProfileOutcome& o, uint32_t line, const Scenario& sc,
                 const char* how) {
  p.shown_line = line;
  p.scroll_to_shown = true;
  OpenedLine& op = p.opened;
  op.label = opened_label(p.form.file, line);
  op.scenario_name = sc.name;
  op.how = how;
  op.line = line;
  op.excerpt = source_excerpt(o.source, line, 12, &op.first);
}

// Line l asked to open in the main views: as recorded where the outcome holds a recording of it
// (the picture's trace remembered for the analyzer), else the followed model's scenario.
void ask_open(ProfilerState& p, const ProfileOutcome& o, const ProfiledLine& l, ProfileAsk& ask) {
  const std::string n = std::to_string(l.line);
  if (o.recorded && o.recorded->has_line(l.line)) {
    std::string why;
    if (std::optional<RecordedPicture> pic = recorded_line_picture(*o.recorded, l.line, &why)) {
      remember_picture(*pic);
      note_opened(p, o, l.line, pic->scenario,
                  o.recorded->gpu ? "recorded on the GPU" : "recorded on the CPU");
      ask.open = std::move(pic->scenario);
      ask.notice = "line " + n + " opened as " +
                   (o.recorded->gpu ? "recorded on the GPU (block (0,0,0) as it ran)"
                                    : "recorded on the CPU: figures are the model's") +
                   " (Ctrl+Z goes back)";
      return;
    }
    if (!l.scenario) {
      p.start_error = "line " + n + " as recorded: " + why;
      return;
    }
  }
  if (!l.scenario) return;
  note_opened(p, o, l.line, *l.scenario, "followed by the model");
  ask.open = *l.scenario;
  ask.notice = "line " + n + " opened as a scenario (the kernel followed, not recorded): " +
               (o.model ? "the model counts " : "the hardware counted ") +
               std::to_string(l.wavefronts) + " wavefronts in " + std::to_string(l.executed) +
               " instructions (Ctrl+Z goes back)";
}

void result(ProfilerState& p, const Palette& pal, const ProfileOutcome& o, ProfileAsk& ask) {
  if (!o.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(o.error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  if (o.header.empty()) return;
  ImGui::TextUnformatted(o.header.c_str());
  ImGui::Text(o.model ? "the model: %lld wavefronts, ideal %lld, excess %lld (%.1f s)"
                      : "shared memory: %lld wavefronts, ideal %lld, excess %lld (%.1f s)",
              static_cast<long long>(o.wavefronts), static_cast<long long>(o.ideal),
              static_cast<long long>(o.excess), o.seconds);
  control_tip(o.model ? "Wavefronts beyond the ideal are bank conflicts: the model's count over "
                        "one block, not measured (docs/PROFILE.md)"
                      : "Wavefronts beyond the ideal are bank conflicts: the hardware's count, "
                        "equal to Nsight Compute's source page (docs/PROFILE.md)");
  if (!o.recording_note.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", o.recording_note.c_str());
    ImGui::PopTextWrapPos();
  }
  if (!o.recorded_why.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("the recorded lines do not open as pictures: %s", o.recorded_why.c_str());
    ImGui::PopTextWrapPos();
  }
  std::map<uint32_t, const ProfiledLine*> by_line;
  int64_t worst = 0;
  for (const ProfiledLine& l : o.lines) {
    by_line[l.line] = &l;
    worst = std::max(worst, l.excess);
  }
  // Through the kernel's lines as a lesson goes through its scenes: each opens in the main views.
  const std::vector<uint32_t> openable = openable_lines(o);
  if (!openable.empty()) {
    const uint32_t cur = p.shown_line;
    const uint32_t prev = step_line(openable, cur, -1), next = step_line(openable, cur, +1);
    ImGui::BeginDisabled(prev == 0);
    if (ImGui::Button("< previous line")) ask_open(p, o, *by_line.at(prev), ask);
    ImGui::EndDisabled();
    control_tip(
        "Open the previous shared-memory line of the kernel as a picture (as recorded, where "
        "the kernel was recorded)");
    ImGui::SameLine();
    ImGui::BeginDisabled(next == 0);
    if (ImGui::Button("next line >")) ask_open(p, o, *by_line.at(next), ask);
    ImGui::EndDisabled();
    control_tip(
        "Open the next shared-memory line of the kernel as a scenario: step through the kernel's "
        "lines, each one's picture in the main views");
    ImGui::SameLine();
    const auto at = std::find(openable.begin(), openable.end(), cur);
    if (at == openable.end())
      ImGui::TextDisabled("%zu lines open as pictures", openable.size());
    else
      ImGui::Text("line %u: %zu of %zu", cur, static_cast<size_t>(at - openable.begin()) + 1,
                  openable.size());
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("source", 8, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("op", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("wavefronts", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("ideal", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("per request", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("model", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("recorded", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  p.visible_first = p.visible_last = p.highlighted = 0;
  p.row_texts.clear();
  p.rows_left = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMin().x;
  p.rows_right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (size_t i = 0; i < o.source.size(); ++i) {
    const uint32_t n = static_cast<uint32_t>(i + 1);
    auto it = by_line.find(n);
    const ProfiledLine* l = it == by_line.end() ? nullptr : it->second;
    ImGui::TableNextRow();
    if (l && l->excess > 0 && worst > 0) {
      // The conflict colour, stronger for more excess: the expensive lines stand out.
      const float a = 0.25f + 0.55f * static_cast<float>(l->excess) / static_cast<float>(worst);
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, col(pal.conflict, a));
    }
    ImGui::TableNextColumn();
    if (n == p.shown_line) {
      // The line open in the views: marked, its whole row in the accent colour (under the
      // excess colour, which stays readable over it), its number cell stronger, and scrolled to
      // (a third down the list) when it was just opened.
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, col(pal.lit_border, 0.30f));
      ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, col(pal.lit_border, 0.45f));
      ImGui::Text("%u >", n);
      if (p.scroll_to_shown) {
        ImGui::SetScrollHereY(0.33f);
        p.scroll_to_shown = false;
      }
      p.highlighted = n;
    } else {
      ImGui::TextDisabled("%u", n);
    }
    if (ImGui::IsItemVisible()) {
      if (p.visible_first == 0) p.visible_first = n;
      p.visible_last = n;
      p.row_texts.push_back({n, ImGui::GetItemRectMin().y, ImGui::GetItemRectSize().y});
    }
    ImGui::TableNextColumn();
    if (l) ImGui::TextUnformatted(l->ops.c_str());
    ImGui::TableNextColumn();
    if (l) ImGui::Text("%lld", static_cast<long long>(l->wavefronts));
    ImGui::TableNextColumn();
    if (l) ImGui::Text("%lld", static_cast<long long>(l->ideal));
    ImGui::TableNextColumn();
    if (l) ImGui::Text("%.2f", l->per_request);
    ImGui::TableNextColumn();
    const bool recorded = l && o.recorded && o.recorded->has_line(n);
    if (l && (l->scenario || recorded)) {
      ImGui::PushID(static_cast<int>(n));
      if (ImGui::SmallButton("open")) ask_open(p, o, *l, ask);
      control_tip(recorded
                      ? (o.recorded->gpu ? "Open this line as recorded on the GPU: every warp "
                                           "instruction block (0,0,0) ran for it, each lane at the "
                                           "address it used, in the main views (Ctrl+Z goes back)"
                                         : "Open this line as recorded on the CPU (figures are the "
                                           "model's): every warp instruction the block ran for it, "
                                           "each lane at the address it used (Ctrl+Z goes back)")
                      : "Open this line's accesses as a bankviz scenario: the model's "
                        "picture of every time it runs in one block, the kernel followed "
                        "(Ctrl+Z goes back)");
      ImGui::SameLine();
      if (l->scenario) {
        ImGui::Text("%.2f", l->model_per_request);
        control_tip("The model's wavefronts per request for this line over one block");
      } else {
        ImGui::TextDisabled("rec");
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("Not followed (%s); recorded, so it opens as the kernel ran it",
                            l->model_why.c_str());
      }
      ImGui::PopID();
    } else if (l && !l->model_why.empty()) {
      ImGui::TextDisabled("why?");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l->model_why.c_str());
    }
    ImGui::TableNextColumn();
    if (l && l->recorded) {
      const double per = l->recorded_requests > 0 ? static_cast<double>(l->recorded_wavefronts) /
                                                        static_cast<double>(l->recorded_requests)
                                                  : 0;
      if (l->executed == 0)
        ImGui::TextDisabled("%.2f", per);
      else if (l->recorded_equal)
        ImGui::Text("%.2f =", per);
      else
        ImGui::TextColored(colv(pal.conflict), "%.2f !=", per);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "recorded on the GPU (block 0), served by the model: %lld wavefronts in %lld "
            "requests; %s",
            static_cast<long long>(l->recorded_wavefronts),
            static_cast<long long>(l->recorded_requests),
            l->executed == 0              ? "the hardware ran no shared instruction for this line"
            : l->recorded_equal           ? "the hardware counted the same wavefronts"
            : !l->recorded_reason.empty() ? l->recorded_reason.c_str()
                                          : "the hardware counted otherwise");
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(o.source[i].c_str());
    if (l && ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "line %u: %lld warp instructions, %lld wavefronts (ideal %lld): %lld "
          "excess, %.2f per request",
          n, static_cast<long long>(l->executed), static_cast<long long>(l->wavefronts),
          static_cast<long long>(l->ideal), static_cast<long long>(l->excess), l->per_request);
  }
  ImGui::EndTable();
}

}  // namespace

ProfileAsk draw_profile(ProfilerState& p, const Palette& pal) {
  ProfileAsk ask;
  poll_profile(p);
  if (!p.open) return ask;
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(fs * 52, fs * 34), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Your kernel: shared memory per source line", &p.open)) {
    ImGui::End();
    return ask;
  }
  form(p, pal, p.job.valid());
  if (p.outcome) {
    ImGui::Separator();
    result(p, pal, *p.outcome, ask);
  }
  ImGui::End();
  return ask;
}

// The line's picture on screen, like a file opened over the draft (undoable). A recorded picture
// analyzes from its trace: the analyzer learns pictures (profiler.h analyze_draft_or_picture).
void open_profile_ask(AppState& s, const ProfileAsk& ask, double now) {
  if (!ask.open) return;
  // A kernel's line is not a lesson scene: the lesson's caption and question go with it.
  close_lesson(s);
  s.analyzer.set_function(analyze_draft_or_picture);
  s.open_pending = true;
  set_draft(s, *ask.open, false);
  mark_loaded(s);
  s.preset.clear();
  s.edit.loaded_preset.clear();
  set_notice(s, ask.notice, now, 8);
}
void open_profile_ask(AppState& s, const ProfileAsk& ask) {
  open_profile_ask(s, ask, ImGui::GetTime());
}

const OpenedLine* opened_line(const AppState& s) {
  // The loaded scenario is the opened line's and the draft is unedited (edit.unsaved: its JSON
  // differs from the loaded one's); a preset, a lesson or a file loaded since is another.
  const OpenedLine& o = s.profiler.opened;
  return !o.label.empty() && s.preset.empty() && !s.edit.unsaved &&
                 s.edit.loaded.name == o.scenario_name && s.draft.name == o.scenario_name &&
                 s.errors.empty()
             ? &o
             : nullptr;
}

bool open_kernel_line(AppState& s, const ProfileForm& f, uint32_t line, std::string* why) {
  ProfilerState& p = s.profiler;
  p.open = true;
  p.form = f;
  refresh_kernels(p.kernels, f.file);
  if (!start_profile(p, why, 0)) return false;
  // The form's own timeout bounds the run (bankviz-cli is stopped after it), plus the compile.
  const auto t0 = std::chrono::steady_clock::now();
  while (!poll_profile(p)) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(300)) {
      *why = "the profile did not finish in 300 s";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!p.outcome || !p.outcome->ok) {
    *why = p.outcome ? p.outcome->error : std::string("the profile gave nothing");
    return false;
  }
  const ProfileOutcome& o = *p.outcome;
  const auto l = std::find_if(o.lines.begin(), o.lines.end(),
                              [&](const ProfiledLine& x) { return x.line == line; });
  if (l == o.lines.end()) {
    *why = "line " + std::to_string(line) + " of " + f.kernel + " makes no shared-memory access";
    return false;
  }
  ProfileAsk ask;
  p.start_error.clear();
  ask_open(p, o, *l, ask);
  if (!ask.open) {
    *why = !p.start_error.empty() ? p.start_error
                                  : "line " + std::to_string(line) + " cannot open as a picture";
    return false;
  }
  open_profile_ask(s, ask, 0);
  return true;
}

}  // namespace bankviz::gui
