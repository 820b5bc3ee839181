// EventPhaseClock<Event>: a PhaseClock over device events, read one step late. begin() and
// end() record events (no synchronisation); collect() closes the step, keeps its events
// and resolves the previous step's, waiting only for that step's last event — by then
// normally long done — so the host may queue step N+1 while the device still runs step
// N, and work between steps shows in wall time. flush() waits for the held step and
// resolves it (end of an epoch). Re-entering a phase within a step accumulates. Events
// come from two pools, the current step's and the held one's, reused in turn.
// `Event` (cuda_event_clock.hpp's CUDA one; a fake in the CPU tests) offers record(),
// synchronize() and elapsed_ms_since(const Event& start).
// Used by the training thread only.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "harness/metrics/phase_clock.hpp"

namespace scalestudy::metrics {

template <typename Event>
class EventPhaseClock : public PhaseClock {
 public:
  void begin(Phase phase) override {
    current_.intervals.push_back(Interval{phase, current_.record()});
    current_.open[static_cast<size_t>(phase)] = static_cast<int>(current_.intervals.size());
  }

  void end(Phase phase) override {
    int& open = current_.open[static_cast<size_t>(phase)];
    if (open == 0) return;  // end without begin: nothing to time
    current_.intervals[open - 1].end = current_.record();
    open = 0;
  }

  std::optional<PhaseTimes> collect() override {
    std::optional<PhaseTimes> times = held_.resolve();
    std::swap(current_, held_);
    current_.reset();
    return times;
  }

  std::optional<PhaseTimes> flush() override {
    std::optional<PhaseTimes> times = held_.resolve();
    held_.reset();
    return times;
  }

 private:
  struct Interval {
    Phase phase;
    Event* begin;
    Event* end = nullptr;
  };

  struct StepEvents {
    std::vector<std::unique_ptr<Event>> pool;
    size_t used = 0;
    std::vector<Interval> intervals;
    std::array<int, kPhaseCount> open{};  // index + 1 into intervals; 0: none

    Event* record() {
      if (used == pool.size()) pool.push_back(std::make_unique<Event>());
      Event* event = pool[used++].get();
      event->record();
      return event;
    }

    // Nothing for a step that recorded no event.
    std::optional<PhaseTimes> resolve() {
      if (used == 0) return std::nullopt;
      pool[used - 1]->synchronize();
      PhaseTimes times;
      for (const Interval& interval : intervals) {
        if (interval.end != nullptr)
          times[interval.phase] += interval.end->elapsed_ms_since(*interval.begin);
      }
      return times;
    }

    void reset() {
      used = 0;
      intervals.clear();
      open.fill(0);
    }
  };

  StepEvents current_, held_;
};

}  // namespace scalestudy::metrics
