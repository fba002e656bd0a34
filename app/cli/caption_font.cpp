// caption_font.cpp: the presenter's caption type (DejaVu Sans Bold, as the app loads it) measured
// the way the app's Dear ImGui measures it, for `lessons --check` (caption_fit.h).
//
// ImGui reads the same TTF with stb_truetype: a glyph's advance is the font's advance width
// scaled by stbtt_ScaleForPixelHeight(px), summed without kerning; a character outside Latin-1
// (the app loads no other range) is drawn as '?'. The CLI has no ImGui (nor a GL library): it
// reads the file with Debian's stb_truetype.h itself, compiled in here.
#include "caption_font.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "bankviz/io.h"

#if BANKVIZ_CAPTION_FONT
#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#include <stb_truetype.h>
#endif

namespace bankviz::cli {

namespace {

// Where the app looks for it (platform/theme.cpp): $BANKVIZ_FONT_DIR first, then Debian's.
const char kFont[] = "DejaVuSans-Bold.ttf";
const char kFontDir[] = "/usr/share/fonts/truetype/dejavu";

std::string font_path() {
  std::error_code ec;
  if (const char* dir = std::getenv("BANKVIZ_FONT_DIR"); dir && *dir) {
    const std::string local = std::string(dir) + "/" + kFont;
    if (std::filesystem::exists(local, ec)) return local;
  }
  return std::string(kFontDir) + "/" + kFont;
}

#if BANKVIZ_CAPTION_FONT
struct Font {
  std::string bytes;
  stbtt_fontinfo info{};
};

// The next UTF-8 character of `t` from `*i`; a malformed byte reads as U+FFFD (drawn '?').
unsigned next_char(std::string_view t, size_t* i) {
  const unsigned c = static_cast<unsigned char>(t[*i]);
  const size_t n = c < 0x80 ? 0 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 4;
  if (n == 4 || *i + n >= t.size() + (n == 0 ? 1 : 0)) {
    ++*i;
    return n == 0 ? c : 0xFFFD;
  }
  unsigned cp = n == 0 ? c : c & (0x3Fu >> n);
  for (size_t k = 1; k <= n; ++k) {
    const unsigned b = static_cast<unsigned char>(t[*i + k]);
    if ((b & 0xC0) != 0x80) {
      ++*i;
      return 0xFFFD;
    }
    cp = cp << 6 | (b & 0x3F);
  }
  *i += n + 1;
  return cp;
}
#endif

}  // namespace

std::function<TextWidth(float px)> caption_font_widths(std::string* why) {
#if BANKVIZ_CAPTION_FONT
  const std::string path = font_path();
  TextRead r = read_text_file(path, int64_t{32} << 20);
  if (!r.text) {
    *why = "the presenter's font " + path + " cannot be read (" + r.error +
           "; Debian's fonts-dejavu-core has it, or set BANKVIZ_FONT_DIR)";
    return {};
  }
  auto font = std::make_shared<Font>();
  font->bytes = std::move(*r.text);
  const auto* data = reinterpret_cast<const unsigned char*>(font->bytes.data());
  if (stbtt_GetNumberOfFonts(data) < 1 ||
      !stbtt_InitFont(&font->info, data, stbtt_GetFontOffsetForIndex(data, 0))) {
    *why = "the presenter's font " + path + " is not a TrueType font";
    return {};
  }
  return [font](float px) -> TextWidth {
    const float scale = stbtt_ScaleForPixelHeight(&font->info, px);
    return [font, scale](std::string_view t) {
      float w = 0;
      for (size_t i = 0; i < t.size();) {
        unsigned c = next_char(t, &i);
        if (c > 0xFF || stbtt_FindGlyphIndex(&font->info, static_cast<int>(c)) == 0) c = '?';
        int advance = 0, lsb = 0;
        stbtt_GetCodepointHMetrics(&font->info, static_cast<int>(c), &advance, &lsb);
        w += static_cast<float>(advance) * scale;
      }
      return w;
    };
  };
#else
  *why =
      "this bankviz-cli was built without stb_truetype.h (Debian's libstb-dev), so it cannot "
      "read the presenter's font " +
      font_path();
  return {};
#endif
}

}  // namespace bankviz::cli
