// latest_job.cpp: what the job template shares (see latest_job.h).
#include "jobs/latest_job.h"

namespace bankviz::gui {

std::string current_exception_text() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace bankviz::gui
