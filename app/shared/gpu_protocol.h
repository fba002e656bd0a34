// gpu_protocol.h: the words `bankviz-cli serve` and its clients (gpu_client.h: --gpu HOST,
// --gpu-command CMD, the app's GPU setting) exchange, one JSON object per line:
//
//   server -> client, once:  {"protocol":"bankviz-serve","protocol_version":1,"bankviz":"0.1.0",
//                             "device":{"present":true,"name":"NVIDIA H200","sm":"sm_90",
//                                       "driver_cuda":12080} | {"present":false,"reason":"..."}}
//   client -> server:        {"id":1,"request":"run","args":["--preset","x","--json"],
//                             "files":{"file-1.json":"<the file's text>"}}
//   server -> client:        {"id":1,"ok":true,"exit":0,"stdout":"...","stderr":"..."}
//                          | {"id":1,"ok":false,"error":"why the request was refused"}
//
// A request is one of the measuring subcommands (kServedRequests) with its arguments as the
// user gave them; the files it names travel in "files" (the server writes them into a directory
// of the request's own and reads no other file of its disk). Pure C++: the browser build and the
// tests read and write these words without a process (the process is gpu_client.h's).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace bankviz {

inline constexpr const char* kProtocolName = "bankviz-serve";
inline constexpr int kProtocolVersion = 1;
// One line at most: a request carries at most a few files of at most 16 MB (a scenario) or 1 MB
// (a kernel); a reply carries a command's output (profile --json of a large kernel).
inline constexpr int64_t kMaxRequestLine = 40LL << 20;
inline constexpr int64_t kMaxReplyLine = 64LL << 20;
inline constexpr int kMaxJsonDepth = 64;
inline constexpr size_t kMaxRequestFiles = 4;

// The subcommands served: what measures on a GPU. Nothing else runs.
inline constexpr const char* kServedRequests[] = {"run",      "compare",     "sweep",
                                                  "validate", "experiments", "profile"};
bool is_served_request(std::string_view name);
// A name of a file sent with a request: letters, digits, '.', '-' and '_', not starting with '.'
// and at most 64 characters (it becomes a file's name in the request's directory).
bool is_sent_file_name(std::string_view name);

// One line of JSON, checked before it is parsed: its nesting (brackets outside strings) at most
// kMaxJsonDepth, then nlohmann's parse. The error says what was wrong.
struct ParsedLine {
  std::optional<nlohmann::json> value;
  std::string error;
};
ParsedLine parse_protocol_line(std::string_view line);

// The server's device, as the greeting carries it.
struct GpuDevice {
  bool present = false;
  std::string name;    // "NVIDIA H200"
  std::string sm;      // "sm_90"
  int driver_cuda = 0;
  std::string reason;  // why not present
};

struct Greeting {
  int protocol_version = 0;
  std::string bankviz;  // the server's bankviz version
  GpuDevice device;
};
nlohmann::json greeting_json(const Greeting& g);
// The first line a server sent, read as a greeting; on error, the reason.
std::optional<Greeting> parse_greeting(std::string_view line, std::string* error);
// Empty when the server may serve this client; else what to install, in words. `where` names
// the server ("gpu.example.org").
std::string version_problem(const Greeting& g, std::string_view mine, std::string_view where);
// "NVIDIA H200" -> "H200" (what a label shows: "H200 on HOST", "measured on H200").
std::string short_gpu_name(std::string_view name);

struct Request {
  int64_t id = 0;
  std::string request;                       // one of kServedRequests
  std::vector<std::string> args;             // after the subcommand's name
  std::map<std::string, std::string> files;  // sent name -> text
};
nlohmann::json request_json(const Request& r);
// A line read by the server as a request; the id is kept where one could be read (for the
// refusal's reply). On error, the reason.
std::optional<Request> parse_request(std::string_view line, std::string* error, int64_t* id);

struct Reply {
  int64_t id = 0;
  bool ok = false;
  int exit = 0;
  std::string out, err;  // the command's standard output and error
  std::string error;     // ok == false: why the server refused the request
};
nlohmann::json reply_json(const Reply& r);
// A line read by the client as the reply to request `id`; on error, the reason.
std::optional<Reply> parse_reply(std::string_view line, int64_t id, std::string* error);

// A line of a remote's output quoted in a message: control characters as '?', at most `max`
// characters.
std::string quoted_excerpt(std::string_view text, size_t max = 160);

}  // namespace bankviz
