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

namespace bankviz {

struct Runner::Impl {
  bool tried = false;  // the device is opened once; its reason stays
  detail::OpenedDevice opened;
  detail::PrimaryContext ctx;
  detail::ModuleCache modules;  // loaded into ctx, valid in it only
  std::unique_ptr<detail::CounterSession>
      counters;  // CUPTI's configuration for ctx (run_counters.h)

  ~Impl() {
    counters.reset();
    detail::DriverStatus st;
    modules.unload_all(st);
    ctx.release(st);
    if (!st.ok()) detail::report_release_failure(st.result(), st.call().c_str());
  }

  // The device and a current context, retained on first use and after a reset.
  bool ensure(std::string* reason) {
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

  // After a sticky error or a timeout the context is unusable: reset it (which unloads its
  // modules and frees its memory); the next run retains a fresh one and reloads the modules
  // from the cached cubins.
  void reset_context(detail::DriverStatus& st) {
    counters.reset();
    modules.forget_all();
    ctx.reset(st);
  }
};

}  // namespace bankviz
