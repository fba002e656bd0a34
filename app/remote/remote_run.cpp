// remote_run.cpp: run_remote() (remote_run.h).
#include "remote_run.h"

#include "run_json.h"

namespace bankviz {

RunResult run_remote(GpuClient& client, const Scenario& s, const RunOptions& o, bool* lost) {
  const Request q = run_request(s, o);
  GpuClient::Outcome out = client.request(q.request, q.args, q.files);
  return run_from_reply(s, o, out.reply ? &*out.reply : nullptr, out.error, client.target().where(),
                        lost);
}

}  // namespace bankviz
