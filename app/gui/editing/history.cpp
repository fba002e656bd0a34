// history.cpp: the snapshot stacks of history.h.
#include "editing/history.h"

namespace bankviz::gui {

namespace {

void push_bounded(std::deque<Scenario>& side, Scenario s) {
  side.push_back(std::move(s));
  while (side.size() > History::kMaxEntries) side.pop_front();
}

}  // namespace

void History::record(const Scenario& before, std::string_view field) {
  // Still typing in the same field: the entry made when the typing began already holds the
  // state before it.
  if (!field.empty() && field == field_ && !undo_.empty()) return;
  push_bounded(undo_, before);
  redo_.clear();  // a new branch: what was undone cannot be redone on top of this edit
  field_ = std::string(field);
}

std::optional<Scenario> History::undo(const Scenario& current) {
  field_.clear();
  if (undo_.empty()) return std::nullopt;
  Scenario back = std::move(undo_.back());
  undo_.pop_back();
  push_bounded(redo_, current);
  return back;
}

std::optional<Scenario> History::redo(const Scenario& current) {
  field_.clear();
  if (redo_.empty()) return std::nullopt;
  Scenario next = std::move(redo_.back());
  redo_.pop_back();
  push_bounded(undo_, current);
  return next;
}

void History::clear() {
  undo_.clear();
  redo_.clear();
  field_.clear();
}

}  // namespace bankviz::gui
