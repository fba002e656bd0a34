// remote.cpp: a measuring command on a GPU elsewhere (--gpu HOST, --gpu-command CMD, through
// gpu_client.h), and the served mode's rules the commands ask (common.h).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "bankviz/io.h"
#include "common.h"
#include "gpu_client.h"

namespace bankviz::cli {

namespace {

const std::vector<std::string>* g_served = nullptr;
void (*g_before_fault_exit)() = nullptr;

// The name a sent file gets: its own when that is a plain file name (the remote's messages then
// name it as a local run would), else file-N plus the value's extension when it is a plain one.
std::string sent_name(const std::string& value, size_t n,
                      const std::map<std::string, std::string>& taken) {
  const std::string own = std::filesystem::path(value).filename().string();
  if (value != "-" && is_sent_file_name(own) && !taken.count(own)) return own;
  std::string ext = std::filesystem::path(value).extension().string();
  if (ext.size() > 8 || !is_sent_file_name("x" + ext)) ext.clear();
  return "file-" + std::to_string(n) + ext;
}

// `token` with the file value `value` replaced by `name`: the value alone, --flag=value, or a
// short flag joined to it (-fvalue). Unchanged when it is none of these.
std::string replaced(const std::string& token, const std::string& value, const std::string& name) {
  if (token == value) return name;
  if (token.size() > value.size() && token.ends_with(value)) {
    const std::string head = token.substr(0, token.size() - value.size());
    if (head.starts_with("--") && head.ends_with("=")) return head + name;
    if (head.size() == 2 && head[0] == '-' && head[1] != '-') return head + name;
  }
  return token;
}

}  // namespace

std::vector<std::string>& invocation_args() {
  static std::vector<std::string> args;
  return args;
}

void add_gpu_options(CLI::App& cmd, GpuFlags& g) {
  cmd.add_option("--gpu", g.host,
                 "measure on the GPU of this ssh destination (user@host, ssh://user@host:port, "
                 "a Host of ~/.ssh/config): runs `ssh HOST bankviz-cli serve` in batch mode")
      ->check(non_empty_path());
  cmd.add_option("--gpu-command", g.command,
                 "measure through this shell command speaking bankviz's protocol (`srun ... "
                 "bankviz-cli serve`, a container, `bankviz-cli serve`)")
      ->check(non_empty_path());
  cmd.add_option("--gpu-timeout", g.timeout_s,
                 "seconds one request to --gpu/--gpu-command may take")
      ->check(finite_number())
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
}

bool run_on_remote_gpu(const GpuFlags& g, const char* subcommand,
                       const std::vector<std::string>& file_values) {
  if (g.host.empty() && g.command.empty()) return false;
  if (serving()) throw Exit{kExitUsage, "--gpu and --gpu-command are not served (no relaying)"};
  GpuTarget target{g.host, g.command};
  target.request_timeout_s = g.timeout_s;
  if (std::string why = target.problem(); !why.empty()) throw Exit{kExitUsage, why};
  // The subcommand's own arguments, the GPU flags taken out.
  std::vector<std::string> args;
  const std::vector<std::string>& all = invocation_args();
  auto at = std::find(all.begin(), all.end(), std::string(subcommand));
  if (at == all.end()) throw Exit{kExitFailed, "internal error: the subcommand's arguments"};
  for (auto it = at + 1; it != all.end(); ++it) {
    const std::string& t = *it;
    const bool flag = t == "--gpu" || t == "--gpu-command" || t == "--gpu-timeout";
    if (flag) {
      if (it + 1 != all.end()) ++it;
      continue;
    }
    if (t.starts_with("--gpu=") || t.starts_with("--gpu-command=") ||
        t.starts_with("--gpu-timeout="))
      continue;
    args.push_back(t);
  }
  // The files the arguments name travel with the request, under names of their own.
  std::map<std::string, std::string> files;
  size_t n = 0;
  for (const std::string& value : file_values) {
    if (value.empty()) continue;
    TextRead in;
    if (value == "-") {
      if (std::string why = standard_input_problem(); !why.empty()) throw Exit{kExitFailed, why};
      in = read_text_stream(std::cin, 16 << 20, "standard input");
    } else {
      in = read_text_file(value, 16 << 20);
    }
    if (!in.text) throw Exit{kExitFailed, in.error};
    const std::string name = sent_name(value, ++n, files);
    files[name] = std::move(*in.text);
    for (std::string& t : args) t = replaced(t, value, name);
  }
  GpuClient client(target);
  if (std::string why = client.connect(); !why.empty()) throw Exit{kExitFailed, why};
  if (std::string why = client.require_gpu(); !why.empty()) throw Exit{kExitFailed, why};
  GpuClient::Outcome o = client.request(subcommand, args, files);
  if (!o.reply) throw Exit{kExitFailed, o.error};
  if (!o.reply->ok)
    throw Exit{kExitFailed, target.where() + " refused the request: " +
                                quoted_excerpt(o.reply->error, 400)};
  std::cout << o.reply->out;
  std::cout.flush();
  std::cerr << o.reply->err;
  if (o.reply->exit != 0) throw Exit{o.reply->exit, ""};
  return true;
}

void set_served_files(const std::vector<std::string>* names) { g_served = names; }

bool serving() { return g_served != nullptr; }

void check_served_input(const std::string& path, const char* flag) {
  if (!g_served) return;
  if (std::find(g_served->begin(), g_served->end(), path) == g_served->end())
    throw Exit{kExitUsage, std::string(flag) + " '" + quoted_excerpt(path, 80) +
                               "': the GPU server reads only the files sent with the request"};
}

void refuse_when_served(const char* flag) {
  if (g_served)
    throw Exit{kExitUsage, std::string(flag) +
                               ": not served (the GPU server writes no file and reads only "
                               "the files sent with the request)"};
}

void end_process_after_fault(int status) {
  std::cout.flush();
  std::cerr.flush();
  if (g_before_fault_exit) g_before_fault_exit();
  std::_Exit(status);
}

void set_before_fault_exit(void (*hook)()) { g_before_fault_exit = hook; }

}  // namespace bankviz::cli
