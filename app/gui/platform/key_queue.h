// key_queue.h: which queued key events one frame hands to ImGui (platform_glfw.cpp).
//
// ImGui 1.86 reads keys as state once a frame (KeysDown, then KeysDownDuration in NewFrame): a tap
// shorter than a frame (a clicker at 10 fps under a software rasterizer, a quick key in the
// browser) is lost, and so is a press that follows its key's release in the same frame (the key
// reads as held down: of 5 quick PageDowns ImGui saw 1). So each frame takes events in order up to
// the first that would change the state of a key already changed in this frame: every press and
// every release is seen by a frame of its own, whatever the frame rate. Pure: no GLFW, no ImGui.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

namespace bankviz::gui {

struct QueuedKey {
  int key = 0;
  bool changes = true;  // a press or a release (false: a repeat, which changes no state)
};

// How many events at the front of `q` this frame takes (0 only when `q` is empty).
template <class Event, class Changes>
size_t keys_for_this_frame(const std::deque<Event>& q, Changes&& changes) {
  std::vector<int> changed;
  size_t n = 0;
  for (const Event& e : q) {
    if (changes(e)) {
      if (std::find(changed.begin(), changed.end(), e.key) != changed.end()) break;
      changed.push_back(e.key);
    }
    ++n;
  }
  return n;
}

inline size_t keys_for_this_frame(const std::deque<QueuedKey>& q) {
  return keys_for_this_frame(q, [](const QueuedKey& e) { return e.changes; });
}

}  // namespace bankviz::gui
