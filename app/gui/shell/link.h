// link.h: links that open a scene. The browser's address ends in a fragment that says what the
// app opens and how, and the desktop app takes the same text (`bankviz --link '#lesson=...'`):
//
//   #lesson=NAME&scene=N[&reveal]   a lesson's scene (1-based), its question answered or not
//   #preset=NAME                    a preset
//   #scenario=BASE64URL             a scenario: its JSON (docs/SCENARIO.md), base64url-encoded
//   &presenter  &theme=light|dark  &size=WxH  &dump-layout   how it is shown
//
// A link is turned into the app's own command-line arguments, so a link and the flags are
// checked by the same code (options.h) and say the same errors. make_link() is the way back:
// the address bar always links to the view on screen.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/scenario.h"

namespace bankviz::gui {

struct LinkRequest {
  std::vector<std::string> args;  // "--lesson", "NAME", "--scene", "2", ...
  std::string scenario_json;      // #scenario='s decoded JSON ("" without one)
  bool dump_layout = false;       // &dump-layout: the page writes the first frame's layout JSON
};

// Parses a fragment (with or without its '#'). nullopt with *error naming the bad part: an
// unknown key, a key given twice, a value missing or given where none is taken, bad percent or
// base64url encoding. At most kMaxLinkBytes are read.
std::optional<LinkRequest> parse_link(std::string_view fragment, std::string* error);
inline constexpr size_t kMaxLinkBytes = 1 << 20;

// What the app shows, as a fragment without '#': the lesson scene (and whether it is answered),
// else the unedited preset, else the scenario itself; then presenter mode and a light theme.
struct LinkView {
  std::string lesson;  // lesson name, "" when none is open
  int scene = 0;       // 1-based
  bool revealed = false;
  std::string preset;                  // the unedited preset's name, else ""
  const Scenario* scenario = nullptr;  // the scenario on screen (edited or from a file)
  bool presenter = false;
  bool light = false;
  std::string size;  // "1280x720" when the link that opened the app fixed it, else ""
};
std::string make_link(const LinkView& v);

// base64url (RFC 4648 section 5, no padding needed) of bytes, and back (nullopt on a character
// outside the alphabet or an impossible length).
std::string base64url_encode(std::string_view bytes);
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace bankviz::gui
