// Undo/redo of the draft (app/gui/editing/history.h): snapshots, coalesced typing, the bound, and a
// new edit after an undo dropping the redo side.
#include <gtest/gtest.h>

#include "editing/history.h"

using namespace bankviz;
using namespace bankviz::gui;

namespace {

Scenario padded(int64_t pad) {
  Scenario s;
  s.tiles[0].pad = pad;
  return s;
}

}  // namespace

TEST(History, UndoRestoresTheDraftBeforeEachEditAndRedoReappliesIt) {
  History h;
  Scenario cur = padded(0);
  for (int64_t p = 1; p <= 3; ++p) {
    h.record(cur);  // a button: its own entry each time
    cur = padded(p);
  }
  EXPECT_EQ(h.undo_size(), 3u);
  std::optional<Scenario> u = h.undo(cur);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->tiles[0].pad, 2);
  cur = *u;
  u = h.undo(cur);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->tiles[0].pad, 1);
  cur = *u;
  std::optional<Scenario> r = h.redo(cur);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->tiles[0].pad, 2);
  cur = *r;
  r = h.redo(cur);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->tiles[0].pad, 3);
  EXPECT_FALSE(h.redo(*r));
  EXPECT_EQ(h.undo_size(), 3u);
}

TEST(History, NothingToUndoOrRedoGivesNothing) {
  History h;
  EXPECT_FALSE(h.can_undo());
  EXPECT_FALSE(h.can_redo());
  EXPECT_FALSE(h.undo(padded(0)));
  EXPECT_FALSE(h.redo(padded(0)));
  EXPECT_FALSE(h.can_redo());  // a failed undo leaves no redo entry behind
}

TEST(History, TypingInOneFieldIsOneEntryUntilTheFieldIsLeft) {
  History h;
  Scenario cur;
  cur.steps.push_back({});
  cur.steps[0].index = "";
  for (const char* typed : {"t", "ti", "til", "tile"}) {
    h.record(cur, "steps[0].index");
    cur.steps[0].index = typed;
  }
  EXPECT_EQ(h.undo_size(), 1u);
  // Another field is another entry, and so is the same field once it was left.
  h.record(cur, "steps[0].guard");
  cur.steps[0].guard = "x";
  h.end_field();
  h.record(cur, "steps[0].guard");
  cur.steps[0].guard = "xy";
  EXPECT_EQ(h.undo_size(), 3u);
  cur = *h.undo(cur);
  EXPECT_EQ(cur.steps[0].guard, "x");
  cur = *h.undo(cur);
  EXPECT_EQ(cur.steps[0].guard, "");
  cur = *h.undo(cur);
  EXPECT_EQ(cur.steps[0].index, "");  // all the typing undone at once
}

TEST(History, TypingAfterAnUndoStartsANewEntryInTheSameField) {
  History h;
  Scenario cur = padded(0);
  h.record(cur, "tiles[0].pad");
  cur = padded(1);
  cur = *h.undo(cur);  // back to 0
  h.record(cur, "tiles[0].pad");
  cur = padded(5);
  ASSERT_EQ(h.undo_size(), 1u);
  EXPECT_EQ(h.undo(cur)->tiles[0].pad, 0);
}

TEST(History, ANewEditAfterUndoClearsRedo) {
  History h;
  Scenario cur = padded(0);
  h.record(cur);
  cur = padded(1);
  cur = *h.undo(cur);
  ASSERT_TRUE(h.can_redo());
  h.record(cur);
  cur = padded(7);
  EXPECT_FALSE(h.can_redo());
  EXPECT_FALSE(h.redo(cur));
  EXPECT_EQ(h.undo(cur)->tiles[0].pad, 0);
}

TEST(History, KeepsAtMostMaxEntriesDroppingTheOldest) {
  History h;
  Scenario cur = padded(0);
  const int n = static_cast<int>(History::kMaxEntries) + 10;
  for (int p = 1; p <= n; ++p) {
    h.record(cur);
    cur = padded(p);
  }
  EXPECT_EQ(h.undo_size(), History::kMaxEntries);
  int64_t oldest = -1;
  while (std::optional<Scenario> u = h.undo(cur)) {
    cur = *u;
    oldest = cur.tiles[0].pad;
  }
  EXPECT_EQ(oldest, n - static_cast<int64_t>(History::kMaxEntries));  // 0 .. 9 were dropped
  EXPECT_EQ(h.redo_size(), History::kMaxEntries);
}

TEST(History, ClearForgetsBothSides) {
  History h;
  Scenario cur = padded(0);
  h.record(cur);
  cur = padded(1);
  h.record(cur);
  cur = *h.undo(padded(2));
  h.clear();
  EXPECT_FALSE(h.can_undo());
  EXPECT_FALSE(h.can_redo());
}
