// browser_gpu.cpp: the browser's GPU, when the page was opened from `bankviz-cli serve --http`
// with its token (issue 33): each run POSTed to the server's /api/request from the Measurer's
// worker (a Web Worker, where a synchronous request waits for the reply without holding the
// page), the reply read as `serve`'s (run_json.h run_from_reply). The page asked the server
// first (bankviz-page.js: GET /api/hello) and said what it found in the environment:
// BANKVIZ_SERVED_GPU ("NVIDIA H200"), BANKVIZ_SERVED_SM, BANKVIZ_SERVED_HOST,
// BANKVIZ_SERVED_TOKEN, or BANKVIZ_SERVED_NOTE (why there is no GPU to measure on).
#include <emscripten.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gpu_protocol.h"
#include "measure/measure.h"
#include "run_json.h"

namespace bankviz::gui {

namespace {

// clang-format off
// POSTs `body` to api/request with the token; writes "STATUS BODY" into out (at most `size`
// bytes) and returns the bytes needed (more than size: call again with a larger buffer).
EM_JS(int, js_post_request, (const char* token, const char* body, char* out, int size), {
  var text;
  try {
    var x = new XMLHttpRequest();
    x.open('POST', 'api/request', false);
    x.setRequestHeader('Authorization', 'token ' + UTF8ToString(token));
    x.setRequestHeader('Content-Type', 'application/json');
    x.send(UTF8ToString(body));
    text = x.status + ' ' + x.responseText;
  } catch (e) {
    text = '0 ' + e;
  }
  var need = lengthBytesUTF8(text) + 1;
  if (need <= size) stringToUTF8(text, out, size);
  return need;
});
// clang-format on

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

class ServedGpu : public RunBackend {
 public:
  ServedGpu(std::string name, std::string sm, std::string host, std::string token)
      : name_(std::move(name)),
        sm_(std::move(sm)),
        host_(std::move(host)),
        token_(std::move(token)) {}

  DeviceInfo device(std::string*) override {
    DeviceInfo d;
    d.present = true;
    d.name = name_;
    d.sm = sm_;
    return d;
  }

  RunResult run(const Scenario& s, const RunOptions& o) override {
    Request q = run_request(s, o);
    q.id = next_id_++;
    const std::string body =
        request_json(q).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::vector<char> out(1 << 20);
    int need =
        js_post_request(token_.c_str(), body.c_str(), out.data(), static_cast<int>(out.size()));
    if (need > static_cast<int>(out.size())) {
      out.resize(static_cast<size_t>(need));
      need =
          js_post_request(token_.c_str(), body.c_str(), out.data(), static_cast<int>(out.size()));
    }
    const std::string text(out.data());
    const size_t space = text.find(' ');
    const int status = std::atoi(text.substr(0, space).c_str());
    const std::string reply_text = space == std::string::npos ? "" : text.substr(space + 1);
    const std::string where = "bankviz-cli serve on " + host_;
    if (status != 200) {
      // Refused (the token, the Origin, busy) or not reached: its words.
      ParsedLine p = parse_protocol_line(reply_text);
      std::string why = p.value && p.value->contains("error") && (*p.value)["error"].is_string()
                            ? (*p.value)["error"].get<std::string>()
                            : quoted_excerpt(reply_text, 200);
      if (status == 0) why = "cannot reach " + where + ": " + quoted_excerpt(reply_text, 200);
      return run_from_reply(s, o, nullptr, why, where);
    }
    std::string error;
    std::optional<Reply> r = parse_reply(reply_text, q.id, &error);
    if (!r) return run_from_reply(s, o, nullptr, where + " sent " + error, where);
    return run_from_reply(s, o, &*r, "", where);
  }

  std::string words() const { return short_gpu_name(name_) + " on " + host_; }

 private:
  std::string name_, sm_, host_, token_;
  int64_t next_id_ = 1;
};

}  // namespace

bool use_served_gpu(Measurer& m) {
  const std::string note = env("BANKVIZ_SERVED_NOTE");
  if (!note.empty()) {
    use_recorded(m, note + "; the recorded figures");
    return true;
  }
  const std::string name = env("BANKVIZ_SERVED_GPU"), token = env("BANKVIZ_SERVED_TOKEN");
  if (name.empty() || token.empty()) return false;
  auto gpu = std::make_shared<ServedGpu>(name, env("BANKVIZ_SERVED_SM"), env("BANKVIZ_SERVED_HOST"),
                                         token);
  const std::string words = gpu->words() + " (bankviz-cli serve --http)";
  m.set_runner([gpu, words](const Scenario& s, const MeasureCall& call) {
    Measurement r = measure_on(*gpu, s, call);
    if (r.ok) r.remote = words;
    return r;
  });
  m.set_source([words] { return words; });
  return true;
}

}  // namespace bankviz::gui
