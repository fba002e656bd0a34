// edit.cpp: structural edits of a Scenario and saving it (edit.h).
#include "editing/edit.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "bankviz/io.h"
#include "bankviz/text.h"

namespace bankviz::gui {

namespace {

// open_step names a step by index: keep it on the same step when the list changes.
void open_step_inserted(Scenario& s, size_t at) {
  if (s.open_step >= 0 && static_cast<size_t>(s.open_step) >= at) ++s.open_step;
}

// tile[threadIdx.y][threadIdx.x] with as many subscripts as the tile has dims (x innermost).
std::string natural_index(const Scenario& s, const std::string& tile) {
  const TileDecl* t = s.find_tile(tile);
  const size_t dims = t ? std::max<size_t>(1, t->dims.size()) : 2;
  static const char* const axes[] = {"threadIdx.z", "threadIdx.y", "threadIdx.x"};
  std::string out = t ? t->name : std::string("tile");
  for (size_t k = 0; k < dims && k < 3; ++k) {
    out += '[';
    out += axes[3 - std::min<size_t>(dims, 3) + k];
    out += ']';
  }
  return out;
}

std::string unique_name(const Scenario& s, const std::string& stem) {
  std::set<std::string> taken;
  for (const Constant& c : s.constants) taken.insert(c.name);
  for (const Let& l : s.lets) taken.insert(l.name);
  for (const Step& st : s.steps)
    if (!st.loop_var.empty()) taken.insert(st.loop_var);
  for (int n = 1;; ++n)
    if (std::string name = stem + std::to_string(n); !taken.count(name)) return name;
}

}  // namespace

const std::vector<std::string>& step_kind_choices() {
  // The step kinds' table (core's kinds.h), every variant spelled out.
  static const std::vector<std::string> choices(step_kind_texts().begin(), step_kind_texts().end());
  return choices;
}

bool set_step_kind(Scenario& s, size_t i, std::string_view kind) {
  if (i >= s.steps.size()) return false;
  Step st = s.steps[i];
  if (!parse_step_op(kind, st)) return false;
  if (st.is_memory() && st.index.empty()) st.index = natural_index(s, st.tile);
  s.steps[i] = std::move(st);
  return true;
}

size_t add_step(Scenario& s, size_t after, std::string_view kind) {
  const size_t at = after < s.steps.size() ? after + 1 : s.steps.size();
  Step st;
  // Start from the access the step follows (or the last one the scenario makes).
  for (size_t j = at; j-- > 0;)
    if (s.steps[j].is_memory()) {
      st.tile = s.steps[j].tile;
      st.index = s.steps[j].index;
      st.guard = s.steps[j].guard;
      break;
    }
  if (!parse_step_op(kind, st)) st.kind = StepKind::Load;
  if (!st.is_memory()) {
    st.index.clear();
    st.guard.clear();
  } else if (st.index.empty()) {
    st.index = natural_index(s, st.tile);
  }
  s.steps.insert(s.steps.begin() + static_cast<std::ptrdiff_t>(at), std::move(st));
  open_step_inserted(s, at);
  return at;
}

size_t duplicate_step(Scenario& s, size_t i) {
  if (i >= s.steps.size()) return s.steps.size();
  Step copy = s.steps[i];
  s.steps.insert(s.steps.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(copy));
  open_step_inserted(s, i + 1);
  return i + 1;
}

void remove_step(Scenario& s, size_t i) {
  if (i >= s.steps.size()) return;
  s.steps.erase(s.steps.begin() + static_cast<std::ptrdiff_t>(i));
  if (s.open_step == static_cast<int>(i)) {
    s.open_step = -1;  // its step is gone: open on the worst step
  } else if (s.open_step > static_cast<int>(i)) {
    --s.open_step;
  }
}

bool move_step(Scenario& s, size_t i, int dir) {
  if (i >= s.steps.size()) return false;
  if (dir < 0 ? i == 0 : i + 1 >= s.steps.size()) return false;
  const size_t j = dir < 0 ? i - 1 : i + 1;
  std::swap(s.steps[i], s.steps[j]);
  if (s.open_step == static_cast<int>(i)) {
    s.open_step = static_cast<int>(j);
  } else if (s.open_step == static_cast<int>(j)) {
    s.open_step = static_cast<int>(i);
  }
  return true;
}

size_t add_let(Scenario& s) {
  s.lets.emplace_back(unique_name(s, "v"), "threadIdx.x", "int");
  return s.lets.size() - 1;
}

void remove_let(Scenario& s, size_t i) {
  if (i < s.lets.size()) s.lets.erase(s.lets.begin() + static_cast<std::ptrdiff_t>(i));
}

size_t add_constant(Scenario& s) {
  Constant c;
  c.name = unique_name(s, "N");
  c.value = 32;
  s.constants.push_back(std::move(c));
  return s.constants.size() - 1;
}

void remove_constant(Scenario& s, size_t i) {
  if (i < s.constants.size())
    s.constants.erase(s.constants.begin() + static_cast<std::ptrdiff_t>(i));
}

bool same_model(const Scenario& a, const Scenario& b) {
  auto model = [](Scenario s) {
    s.name.clear();
    s.title.clear();
    s.description.clear();
    s.source.clear();
    s.open_step = -1;
    return scenario_to_json(s);
  };
  return model(a) == model(b);
}

std::string draft_description(const Scenario& loaded, const Scenario& draft, const Analysis* a) {
  if (same_model(loaded, draft)) return loaded.description;
  const std::string from =
      "Edited from " + (loaded.name.empty() ? std::string("a scenario") : loaded.name) + ". ";
  if (!a) return from + "It does not analyze (the errors are under the controls).";
  return from + describe_analysis(*a);
}

std::string default_save_path(const Scenario& s) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::current_path(ec);
  if (ec) dir = ".";
  const std::string name = s.name.empty() ? std::string("scenario") : s.name;
  return (dir / (name + ".json")).string();
}

SaveResult save_scenario(const Scenario& s, const std::string& path, bool force) {
  SaveResult r;
  std::error_code ec;
  r.path = path.empty() ? path : std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec || r.path.empty()) r.path = path;
  if (std::string why = output_problem(r.path, force); !why.empty()) {
    // Only an existing file that force may replace is a question for the user; a directory, a
    // device or a missing directory stay errors.
    r.status =
        !force && output_problem(r.path, true).empty() ? SaveResult::Exists : SaveResult::Failed;
    r.error = std::move(why);
    return r;
  }
  r.error = write_file_atomic(r.path, scenario_to_json(s), force);
  r.status = r.error.empty() ? SaveResult::Saved : SaveResult::Failed;
  return r;
}

}  // namespace bankviz::gui
