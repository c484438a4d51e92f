#pragma once
// The deterministic simulator behind `weft synth`: runs a pattern under the
// cost model of timing_model.h and hands over the event records of a chosen
// range of ranks, in batches (one per iteration), to a RecordSink.
//
// The run is a pure function of the options: simulating ranks [a, b) alone
// yields exactly the records those ranks have in a full run, so a writer can
// produce a huge archive block by block with bounded memory.
#include <cstdint>
#include <span>

#include "synth/synth_options.h"
#include "synth/trace_model.h"

namespace weft::synth {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // Records of the emitted ranks, each rank's in time order (ranks interleave).
  virtual void consume(std::span<const Record> records) = 0;
};

struct SimulationSummary {
  TimeNs trace_end_ns = 0;        // latest Leave(main) over ALL ranks
  std::uint64_t records = 0;      // records handed to the sink
};

class Simulator {
 public:
  // Validates the options (throws weft::Error).
  explicit Simulator(SynthOptions options);

  const SynthOptions& options() const { return options_; }
  const CommLayout& comms() const { return comms_; }

  // Simulates the whole run; hands the records of ranks [first_rank, end_rank) to `sink`.
  SimulationSummary run(std::int32_t first_rank, std::int32_t end_rank, RecordSink& sink) const;

 private:
  SynthOptions options_;
  CommLayout comms_;
};

}  // namespace weft::synth
