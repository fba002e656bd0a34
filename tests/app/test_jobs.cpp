// The app's one background-job mechanism (jobs/latest_job.h) and the jobs built on it: the newest
// request wins, nothing thrown escapes, a measurement that failed does not switch the GPU off.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "advisor/advisor.h"
#include "jobs/latest_job.h"
#include "measure/measure.h"

namespace bankviz::gui {
namespace {

// A function that blocks until released, so a test decides when each run ends.
struct JobGate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> started{0};
  void wait() {
    ++started;
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return open; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m);
      open = true;
    }
    cv.notify_all();
  }
};

void wait_until(const std::function<bool()>& f) {
  for (int i = 0; i < 1000 && !f(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

TEST(LatestJob, OnlyTheNewestRequestsResultIsTakenAndAReplacedQueuedOneNeverRuns) {
  JobGate gate;
  std::mutex ran_m;
  std::vector<int> ran;
  LatestJob<int, int> job([&](const int& x) {
    if (x == 1) gate.wait();
    std::lock_guard<std::mutex> lock(ran_m);
    ran.push_back(x);
    return x * 10;
  });
  job.keep_last(true);
  EXPECT_EQ(job.request(1), 1u);
  wait_until([&] { return gate.started == 1; });
  EXPECT_EQ(job.request(2), 2u);  // queued behind the running 1
  EXPECT_EQ(job.request(3), 3u);  // replaces 2, which never runs
  EXPECT_TRUE(job.busy());
  EXPECT_FALSE(job.take());
  gate.release();
  ASSERT_TRUE(job.wait(30));
  auto d = job.take();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, 3u);
  EXPECT_EQ(d->result, 30);
  EXPECT_FALSE(job.take());  // once
  EXPECT_FALSE(job.busy());
  ASSERT_TRUE(job.current());
  EXPECT_EQ(job.current()->result, 30);
  std::lock_guard<std::mutex> lock(ran_m);
  EXPECT_EQ(ran, (std::vector<int>{1, 3}));
}

TEST(LatestJob, LastKeepsTheSupersededResultWhileTheNewestRuns) {
  JobGate gate;
  LatestJob<int, int> job([&](const int& x) {
    if (x == 2) gate.wait();
    return x;
  });
  job.keep_last(true);
  job.request(1);
  ASSERT_TRUE(job.wait(30));
  job.request(2);
  wait_until([&] { return gate.started == 1; });
  ASSERT_TRUE(job.last());
  EXPECT_EQ(job.last()->result, 1);  // still shown while 2 runs
  EXPECT_FALSE(job.current());       // but it does not answer the newest request
  gate.release();
  ASSERT_TRUE(job.wait(30));
  EXPECT_EQ(job.current()->result, 2);
}

TEST(LatestJob, AnExceptionBecomesTheFailResultAndTheWorkerGoesOn) {
  LatestJob<int, std::string> job(
      [](const int& x) -> std::string {
        if (x == 0) throw std::bad_alloc();
        if (x == 1) throw std::runtime_error("broken");
        return "fine";
      },
      [](const std::string& why) { return "failed: " + why; });
  job.request(0);
  ASSERT_TRUE(job.wait(30));
  EXPECT_EQ(job.take()->result, "failed: out of memory");
  job.request(1);
  ASSERT_TRUE(job.wait(30));
  EXPECT_EQ(job.take()->result, "failed: broken");
  job.request(2);
  ASSERT_TRUE(job.wait(30));
  EXPECT_EQ(job.take()->result, "fine");
}

// run_here: the request runs on the calling thread (the browser's start-up: no worker to wait
// for), supersedes one still queued, and is published as the worker publishes its results.
TEST(LatestJob, RunHereRunsOnTheCallingThreadAndSupersedesTheQueuedRequest) {
  JobGate gate;
  std::mutex ran_m;
  std::vector<std::pair<int, std::thread::id>> ran;
  std::vector<uint64_t> done_ids;
  LatestJob<int, int> job(
      [&](const int& x) {
        if (x == 1) gate.wait();
        if (x == 4) throw std::runtime_error("broken");
        std::lock_guard<std::mutex> lock(ran_m);
        ran.emplace_back(x, std::this_thread::get_id());
        return x * 10;
      },
      [](const std::string&) { return -1; });
  job.on_done([&](uint64_t id, const int&) {
    std::lock_guard<std::mutex> lock(ran_m);
    done_ids.push_back(id);
  });
  job.request(1);
  wait_until([&] { return gate.started == 1; });
  job.request(2);                  // queued behind the running 1
  EXPECT_EQ(job.run_here(3), 3u);  // runs now, here; 2 never runs
  EXPECT_FALSE(job.busy());        // 3 answers the newest request
  auto d = job.take();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, 3u);
  EXPECT_EQ(d->result, 30);
  gate.release();                  // 1 ends, superseded: never taken
  EXPECT_EQ(job.run_here(4), 4u);  // what it throws becomes the fail result
  EXPECT_EQ(job.take()->result, -1);
  job.request(5);  // the worker goes on after run_here
  ASSERT_TRUE(job.wait(30));
  EXPECT_EQ(job.take()->result, 50);
  std::lock_guard<std::mutex> lock(ran_m);
  ASSERT_EQ(ran.size(), 3u);
  EXPECT_EQ(ran[0].first, 3);
  EXPECT_EQ(ran[0].second, std::this_thread::get_id());
  EXPECT_EQ(ran[1].first, 1);
  EXPECT_NE(ran[1].second, std::this_thread::get_id());
  EXPECT_EQ(ran[2].first, 5);
  EXPECT_EQ(std::count(done_ids.begin(), done_ids.end(), 3u), 1);
}

TEST(LatestJob, WithoutKeepLastNothingIsHeldAfterTheTake) {
  LatestJob<int, int> job([](const int& x) { return x; });
  job.request(7);
  ASSERT_TRUE(job.wait(30));
  EXPECT_FALSE(job.last());
  EXPECT_EQ(job.take()->result, 7);
}

TEST(Measurer, AFailedMeasurementIsShownAndTheNextEditIsMeasuredAgain) {
  Measurer m;
  EXPECT_EQ(m.state(), Measurer::State::Unavailable);  // no runner: no GPU
  int calls = 0;
  m.set_runner([&](const Scenario&) {
    Measurement r;
    if (++calls == 1) {
      r.error = "compile error: something";
      return r;
    }
    r.ok = true;
    r.cycles_per_instruction = 4;
    return r;
  });
  EXPECT_EQ(m.state(), Measurer::State::Idle);
  m.request(Scenario{});
  m.wait(30);
  EXPECT_EQ(m.state(), Measurer::State::Done);
  EXPECT_EQ(m.reason(), "compile error: something");
  m.request(Scenario{});  // still measured: a kernel that failed is not "no GPU"
  m.wait(30);
  EXPECT_EQ(calls, 2);
  ASSERT_TRUE(m.current());
  EXPECT_TRUE(m.current()->ok);
  EXPECT_EQ(m.history().size(), 1u);
}

TEST(Measurer, ARunnerReportingNoDeviceMakesItUnavailableWithTheReason) {
  Measurer m;
  m.set_runner([](const Scenario&) {
    Measurement r;
    r.error = "no CUDA device: the model still works, timing unavailable (driver)";
    r.no_device = true;
    return r;
  });
  m.request(Scenario{});
  m.wait(30);
  EXPECT_EQ(m.state(), Measurer::State::Unavailable);
  EXPECT_NE(m.reason().find("no CUDA device"), std::string::npos);
}

TEST(Measurer, DestroyedWhileAMeasurementRunsWaitsForIt) {
  // The app quits (a failed --svg) while the worker measures: the measurement's end must not
  // touch the Measurer's history after it is gone (was a double free; ASan: use after free).
  std::atomic<bool> started{false};
  {
    Measurer m;
    m.set_runner([&](const Scenario&) {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      Measurement r;
      r.ok = true;
      r.lines.assign(64, std::string(64, 'x'));  // something for a use after free to corrupt
      return r;
    });
    m.request(Scenario{});
    wait_until([&] { return started.load(); });
  }
  EXPECT_TRUE(started);
}

TEST(Measurer, TheFigureIsShownBeforeTheRestOfTheMeasurementEnds) {
  // The figure on stage follows an edit as soon as the exposed timing is in: the runner hands it
  // over (MeasureCall::figure) and goes on with the counters and the lesson's launch.
  Measurer m;
  JobGate rest;
  std::vector<bool> figure_only;
  m.set_runner([&](const Scenario&, const MeasureCall& call) {
    figure_only.push_back(call.figure_only);
    Measurement r;
    r.ok = true;
    r.partial = true;
    r.cycles_per_instruction = 32;
    if (call.figure_only) return r;
    if (call.figure) call.figure(r);
    rest.wait();  // the counters, the lesson's launch, the compiled kernel
    r.partial = false;
    r.microseconds = 5;
    return r;
  });
  m.request(Scenario{});
  wait_until([&] { return m.current().has_value(); });
  ASSERT_TRUE(m.current());
  EXPECT_TRUE(m.current()->partial);
  EXPECT_EQ(m.current()->cycles_per_instruction, 32);
  EXPECT_EQ(m.state(), Measurer::State::Running);  // the whole measurement is still running
  EXPECT_TRUE(m.history().empty());                // a figure is not a measurement of its own
  rest.release();
  m.wait(30);
  ASSERT_TRUE(m.current());
  EXPECT_FALSE(m.current()->partial);
  EXPECT_EQ(m.current()->microseconds, 5);
  EXPECT_EQ(m.history().size(), 1u);
  // A comparison's side or a sweep's point asks for the figure only.
  m.request(Scenario{}, true);
  m.wait(30);
  ASSERT_EQ(figure_only.size(), 2u);
  EXPECT_FALSE(figure_only[0]);
  EXPECT_TRUE(figure_only[1]);
  ASSERT_TRUE(m.current());
  EXPECT_TRUE(m.current()->partial);
}

TEST(LatestJob, ASupersededRunsEarlyResultIsNotShown) {
  // A figure handed over by a run that a newer request superseded belongs to a scenario no longer
  // on screen: neither last() (the measurement panel) nor current() (the stage) shows it.
  LatestJob<int, int> job;
  job.keep_last(true);
  JobGate first, rest;
  std::atomic<bool> handed{false};
  job.set_function([&](const int& v) {
    if (v == 1) {
      first.wait();
      job.progress(100);  // superseded by now
      handed = true;
      rest.wait();
    }
    return v;
  });
  job.request(1);
  wait_until([&] { return first.started.load() == 1; });
  job.request(2);
  first.release();
  wait_until([&] { return handed.load(); });
  EXPECT_FALSE(job.last());
  EXPECT_FALSE(job.current());
  rest.release();
  ASSERT_TRUE(job.wait(30));
  ASSERT_TRUE(job.current());
  EXPECT_EQ(job.current()->result, 2);
}

TEST(Advisor, AnAdviceThatThrowsReportsTheFailure) {
  AdvisorState a;
  a.job.set_function([](const Scenario&) -> AdviceOutcome { throw std::bad_alloc(); });
  a.job.request(Scenario{});
  ASSERT_TRUE(a.job.wait(30));
  ASSERT_TRUE(poll_advice(a));
  EXPECT_FALSE(a.advice);
  EXPECT_EQ(a.failure, "out of memory");
}

}  // namespace
}  // namespace bankviz::gui
