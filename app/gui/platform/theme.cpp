// theme.cpp: fonts and style (see theme.h).
#include "platform/theme.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "backends/imgui_impl_opengl3.h"
#include "caption_fit.h"

namespace bankviz::gui {

Fonts g_fonts;

float font_px(float scale, bool presenter, float window_px_h) {
  if (!presenter) return 17.0f * scale;
  return presenter_type_px(scale, window_px_h);  // caption_fit.h: `lessons --check` fits to it
}

// The first of `paths` that exists; $BANKVIZ_FONT_DIR/<file name> first (a machine without the
// Debian font packages, such as a GPU host the app was carried to).
static ImFont* try_font(const char* const* paths, float px) {
  ImGuiIO& io = ImGui::GetIO();
  const char* dir = std::getenv("BANKVIZ_FONT_DIR");
  for (const char* const* p = paths; *p; ++p) {
    std::error_code ec;
    if (dir && *dir) {
      std::string local = std::string(dir) + "/" + std::filesystem::path(*p).filename().string();
      if (std::filesystem::exists(local, ec))
        return io.Fonts->AddFontFromFileTTF(local.c_str(), px);
    }
    if (std::filesystem::exists(*p, ec)) return io.Fonts->AddFontFromFileTTF(*p, px);
  }
  return nullptr;
}

Fonts g_slide_fonts;

namespace {
Fonts add_font_set(float px) {
  static const char* kSans[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", nullptr};
  static const char* kBold[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", nullptr};
  static const char* kMono[] = {
      "/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
      "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", nullptr};
  ImGuiIO& io = ImGui::GetIO();
  Fonts f;
  f.size = px;
  f.ui = try_font(kSans, px);
  if (!f.ui) {
    ImFontConfig cfg;
    cfg.SizePixels = px;
    f.ui = io.Fonts->AddFontDefault(&cfg);
  }
  f.bold = try_font(kBold, px);
  f.big = try_font(kBold, px * 1.45f);
  f.mono = try_font(kMono, px);
  if (!f.bold) f.bold = f.ui;
  if (!f.big) f.big = f.ui;
  if (!f.mono) f.mono = f.ui;
  return f;
}
}  // namespace

void load_fonts(float px, float slide_px) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  g_fonts = add_font_set(px);  // the first: ImGui's default font
  g_slide_fonts = slide_px > 0 && std::abs(slide_px - px) > 0.5f ? add_font_set(slide_px) : g_fonts;
  io.Fonts->Build();
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

void apply_style(const Palette& p, float scale, bool presenter) {
  ImGuiStyle style;
  if (p.light) {
    ImGui::StyleColorsLight(&style);
  } else {
    ImGui::StyleColorsDark(&style);
  }
  style.WindowRounding = 6;
  style.FrameRounding = 4;
  style.GrabRounding = 4;
  style.WindowBorderSize = 1;
  style.FramePadding = ImVec2(7, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.WindowPadding = ImVec2(10, 8);
  style.ScaleAllSizes(scale * (presenter ? 1.4f : 1.0f));
  if (presenter) {
    // Large controls, but tight margins between the panels: the height is the pictures'.
    style.WindowPadding = ImVec2(10 * scale, 5 * scale);
    style.ItemSpacing = ImVec2(8 * scale, 4 * scale);
  }
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = colv(p.panel);
  // Child windows sit on their panel: no second background layer to fill (see begin_panel).
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_Text] = colv(p.text);
  c[ImGuiCol_TextDisabled] = colv(p.text_dim);
  if (!p.light) {
    c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.18f, 0.22f, 1);
    c[ImGuiCol_TitleBg] = c[ImGuiCol_TitleBgActive] = ImVec4(0.10f, 0.11f, 0.14f, 1);
    c[ImGuiCol_Button] = ImVec4(0.22f, 0.30f, 0.45f, 1);
    c[ImGuiCol_Header] = ImVec4(0.22f, 0.30f, 0.45f, 1);
  } else {
    c[ImGuiCol_TitleBg] = c[ImGuiCol_TitleBgActive] = ImVec4(0.88f, 0.89f, 0.92f, 1);
    c[ImGuiCol_Border] = ImVec4(0.70f, 0.72f, 0.76f, 1);
  }
  if (presenter) {
    style.FrameBorderSize = 1;
    c[ImGuiCol_Border] = colv(p.text_dim);
  }
  ImGui::GetStyle() = style;
}

}  // namespace bankviz::gui
