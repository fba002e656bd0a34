// runner_impl.h (internal, CUDA builds only): Runner::Impl, the device, its primary context, the
// modules loaded into it and CUPTI's configuration for it, shared by Runner::run() (runner.cpp)
// and Runner::profile() (profile_run.cpp).
#pragma once

#include <memory>
#include <string>

#include "bankviz/runner.h"
#include "compiler.h"
#include "cupti.h"
#include "driver.h"
#include "measure.h"

namespace bankviz {

struct Runner::Impl {
  bool tried = false;  // the device is opened once; its reason stays
  // Set when the context cannot be used again in this process: a user's kernel (Runner::profile)
  // that did not finish (releasing or resetting its context would wait for it), or a sticky
  // error (an illegal address...: measured on an H100, CUDA 13, a context retained after
  // cuDevicePrimaryCtxReset returns the same error; CUDA's documentation says the process must
  // end). Everything is abandoned and every later run is refused with this reason.
  std::string wedged;
  detail::OpenedDevice opened;
  detail::PrimaryContext ctx;
  detail::ModuleCache modules;  // loaded into ctx, valid in it only
  detail::ModelCache models;    // the last scenario's model on this GPU's rules
  std::unique_ptr<detail::CounterSession>
      counters;  // CUPTI's configuration for ctx (run_counters.h)

  ~Impl() {
    if (!wedged.empty()) return;  // wedge() forgot everything: a call would wait forever
    counters.reset();
    detail::DriverStatus st;
    modules.unload_all(st);
    ctx.release(st);
    if (!st.ok()) detail::report_release_failure(st.result(), st.call().c_str());
  }

  // The device and a current context, retained on first use and after a reset.
  bool ensure(std::string* reason) {
    if (!wedged.empty()) {
      *reason = wedged;
      return false;
    }
    if (!tried) {
      tried = true;
      opened = detail::open_first_device();
    }
    if (!opened.ok) {
      *reason = opened.reason;
      return false;
    }
    const detail::Driver& d = detail::driver();
    if (!ctx.held()) {
      if (CUresult r = ctx.retain(opened.dev); r != CUDA_SUCCESS) {
        *reason = "could not create a CUDA context: " + d.describe(r);
        return false;
      }
    }
    if (CUresult r = ctx.make_current(); r != CUDA_SUCCESS) {
      *reason = "could not make the CUDA context current: " + d.describe(r);
      return false;
    }
    return true;
  }

  // After a generated kernel's timeout (the model's estimate bounds how long it still runs):
  // reset the context (which waits for the kernel, unloads its modules and frees its memory);
  // the next run retains a fresh one and reloads the modules from the cached cubins.
  // The words for a sticky error, kept as the reason later runs are refused.
  static std::string sticky_reason(const std::string& error) {
    return "the GPU reported " + error +
           "; CUDA cannot recover from this error in the same process: restart bankviz "
           "(each bankviz-cli command is a new process)";
  }

  // The context cannot be used again: forget it all without a driver call.
  void wedge(std::string why) {
    (void)counters.release();  // its destructor would call CUPTI on the context
    modules.forget_all();
    ctx.abandon();
    wedged = std::move(why);
  }

  void reset_context(detail::DriverStatus& st) {
    counters.reset();
    modules.forget_all();
    ctx.reset(st);
  }
};

}  // namespace bankviz
