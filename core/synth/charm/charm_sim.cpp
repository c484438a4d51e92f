#include "synth/charm/charm_sim.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <queue>

#include "common/error.h"
#include "synth/prng.h"

namespace weft::synth {
namespace {

constexpr std::string_view kCharmPatternNames[] = {"jacobi2d", "reduction-tree", "ampi"};

// Chare types and entry methods of every synthetic run; the application
// array (type kAppType) and the names of entries 6..8 depend on the pattern.
enum : int {
  kReductionMgrType = 5,
  kMainType = 9,
  kAppType = 10,
};
enum : int {
  kEntryContribute = 3,
  kEntryRecvMsg = 4,
  kEntryMain = 5,
  kEntryMainDone = 6,
  kEntryAppStart = 7,
  kEntryAppMessage = 8,
};
enum : int { kEventSend = 0, kEventRecv = 1, kEventMigrate = 2 };

constexpr std::int64_t kLocalLatency = 1;
constexpr std::int64_t kRemoteLatency = 5;

struct Message {
  std::int64_t arrival;
  std::int64_t seq;
  std::int32_t target;  // array element for the application entries, else the PE
  std::int32_t entry;
  std::int32_t src_pe;
  std::int32_t event;
  std::int32_t bytes;
  std::int32_t iteration;
};
struct Later {
  bool operator()(const Message& a, const Message& b) const {
    return a.arrival != b.arrival ? a.arrival > b.arrival : a.seq > b.seq;
  }
};

std::int32_t parse_int(std::string_view s, const char* what, std::string_view whole) {
  std::int32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    throw Error("--migrate '" + std::string(whole) + "': " + what + " is not an integer (VP:PE@ITER)");
  return v;
}

class Simulator {
 public:
  explicit Simulator(const CharmSynthOptions& o) : o_(o) {
    const std::int32_t p = o.pes;
    elements_ = o.pattern == CharmPattern::Ampi ? (o.vps > 0 ? o.vps : p) : p * o.chares_per_pe;
    run_.pe_records.resize(static_cast<std::size_t>(p));
    busy_.assign(static_cast<std::size_t>(p), 0);
    next_event_.assign(static_cast<std::size_t>(p), 0);
    location_.resize(static_cast<std::size_t>(elements_));
    for (std::int32_t c = 0; c < elements_; ++c)
      location_[static_cast<std::size_t>(c)] =
          o.pattern == CharmPattern::Ampi
              ? static_cast<std::int32_t>(static_cast<std::int64_t>(c) * p / elements_)
              : c / o.chares_per_pe;
    ready_.assign(static_cast<std::size_t>(elements_), 0);
    counter_.assign(static_cast<std::size_t>(elements_) * 2, 0);
    flag_.assign(static_cast<std::size_t>(elements_), 0);
    pe_local_.assign(static_cast<std::size_t>(p), 0);
    pe_children_.assign(static_cast<std::size_t>(p), 0);
    grid_x_ = 1;
    for (std::int32_t d = 1; static_cast<std::int64_t>(d) * d <= elements_; ++d)
      if (elements_ % d == 0) grid_x_ = d;
    define_names();
  }

  CharmRun run() {
    for (auto& r : run_.pe_records) r.push_back(record(kSimBeginComputation, 0));
    push({0, 0, 0, kEntryMain, -1, -1, 0, 0});
    while (!queue_.empty()) {
      Message m = queue_.top();
      queue_.pop();
      execute(m);
    }
    std::int64_t end = 0;
    for (std::int64_t b : busy_) end = std::max(end, b);
    end += 1;
    for (std::size_t pe = 0; pe < busy_.size(); ++pe) {
      auto& r = run_.pe_records[pe];
      r.push_back(record(kSimBeginIdle, busy_[pe], static_cast<std::int32_t>(pe)));
      r.push_back(record(kSimEndIdle, end, static_cast<std::int32_t>(pe)));
      r.push_back(record(kSimEndComputation, end));
    }
    run_.end_us = end;
    run_.chares = elements_;
    return std::move(run_);
  }

 private:
  static SimRecord record(std::uint8_t type, std::int64_t t, std::int32_t pe = -1) {
    return {t, -1, -1, pe, 0, 0, 0, type, 0};
  }
  bool is_app_entry(std::int32_t entry) const { return entry == kEntryAppStart || entry == kEntryAppMessage; }

  void define_names() {
    run_.chare_types = {{"dummy_thread_chare", -1}, {"dummy_pack_chare", -1}, {"dummy_unpack_chare", -1},
                        {"Chare", -1},              {"Group", -1},            {"CkReductionMgr", -1},
                        {"CkArray", -1},            {"CkLocMgr", -1},         {"DefaultArrayMap", -1},
                        {"Main", -1}};
    run_.entries = {{"dummy_thread_ep", 0},
                    {"dummy_pack_ep", 1},
                    {"dummy_unpack_ep", 2},
                    {"contribute(CkReductionMsg* impl_msg)", kReductionMgrType},
                    {"RecvMsg(CkReductionMsg* impl_msg)", kReductionMgrType},
                    {"Main(CkArgMsg* impl_msg)", kMainType}};
    // The application array and the pattern's entries 6..8 (Main's last
    // entry, the element's start and message entries).
    struct Names {
      const char* array;
      int dimensions;
      const char* main_done;
      const char* start;
      const char* message;
    };
    static constexpr Names kNames[] = {
        {"Jacobi", 2, "done(CkReductionMsg* impl_msg)", "begin_iteration()", "recvGhost(GhostMsg* impl_msg)"},
        {"Worker", 1, "iterationDone()", "start()", "recvPartial(PartialMsg* impl_msg)"},
        {"ampi", 1, "done()", "run()", "generic(AmpiMsg* impl_msg)"},
    };
    const Names& n = kNames[static_cast<std::size_t>(o_.pattern)];
    run_.chare_types.push_back({n.array, n.dimensions});
    run_.entries.push_back({n.main_done, kMainType});
    run_.entries.push_back({n.start, kAppType});
    run_.entries.push_back({n.message, kAppType});
    if (o_.pattern == CharmPattern::Ampi)
      run_.user_events = {{kEventSend, "AMPI_Send"}, {kEventRecv, "AMPI_Recv"}, {kEventMigrate, "AMPI_Migrate"}};
  }

  void push(Message m) {
    m.seq = seq_++;
    if (m.src_pe >= 0) ++run_.messages;  // one creation → execution pair per delivery
    queue_.push(m);
  }

  std::int32_t pe_of(const Message& m) const {
    return is_app_entry(m.entry) ? location_[static_cast<std::size_t>(m.target)] : m.target;
  }

  // The compute time of element `c` in `iteration`: base, seeded jitter, delays.
  std::int64_t work(std::int64_t base, std::int32_t c, std::int32_t iteration) const {
    double w = static_cast<double>(base);
    if (o_.jitter > 0)
      w *= 1.0 + o_.jitter * symmetric_noise(o_.seed, static_cast<std::uint32_t>(c),
                                             static_cast<std::uint32_t>(iteration), 0);
    for (const Delay& d : o_.delays)
      if (d.rank == c && d.iteration == iteration) w *= d.factor;
    return std::max<std::int64_t>(1, std::llround(w));
  }

  // --- within an execution on pe_, at now_ ---
  void compute(std::int64_t us) { now_ += us; }
  void create(std::int32_t entry, std::int32_t target, std::int32_t bytes, std::int32_t iteration) {
    const std::int32_t event = next_event_[static_cast<std::size_t>(pe_)]++;
    SimRecord r = record(kSimCreation, now_, pe_);
    r.entry = entry;
    r.event = event;
    r.bytes = bytes;
    log(r);
    const std::int32_t dst = is_app_entry(entry) ? location_[static_cast<std::size_t>(target)] : target;
    push({now_ + (dst == pe_ ? kLocalLatency : kRemoteLatency), 0, target, entry, pe_, event, bytes, iteration});
    now_ += 1;
  }
  void broadcast(std::int32_t entry, std::int32_t bytes, std::int32_t iteration) {
    const std::int32_t event = next_event_[static_cast<std::size_t>(pe_)]++;
    SimRecord r = record(kSimCreationBcast, now_, pe_);
    r.entry = entry;
    r.event = event;
    r.bytes = bytes;
    r.a = o_.pes;
    log(r);
    for (std::int32_t c = 0; c < elements_; ++c) {
      const std::int32_t dst = location_[static_cast<std::size_t>(c)];
      push({now_ + (dst == pe_ ? kLocalLatency : kRemoteLatency), 0, c, entry, pe_, event, bytes, iteration});
    }
    now_ += 1;
  }
  template <typename Body>
  void bracket(int user_event, std::int32_t vp, Body&& body) {
    SimRecord r = record(kSimBeginUserPair, now_, pe_);
    r.entry = user_event;
    r.event = next_event_[static_cast<std::size_t>(pe_)]++;
    r.b = vp;
    log(r);
    body();
    SimRecord e = r;
    e.type = kSimEndUserPair;
    e.time_us = now_;
    log(e);
  }
  void log(const SimRecord& r) { run_.pe_records[static_cast<std::size_t>(pe_)].push_back(r); }

  void execute(const Message& m) {
    pe_ = pe_of(m);
    auto pe = static_cast<std::size_t>(pe_);
    std::int64_t start = std::max(m.arrival, busy_[pe]);
    if (is_app_entry(m.entry)) start = std::max(start, ready_[static_cast<std::size_t>(m.target)]);
    if (start > busy_[pe]) {
      log(record(kSimBeginIdle, busy_[pe], pe_));
      log(record(kSimEndIdle, start, pe_));
    }
    now_ = start;
    SimRecord begin = record(kSimBeginProcessing, now_, m.src_pe);
    begin.entry = m.entry;
    begin.event = m.event;
    begin.bytes = m.bytes;
    if (is_app_entry(m.entry)) {
      if (o_.pattern == CharmPattern::Jacobi2d) {
        begin.index_count = 2;
        begin.a = m.target % grid_x_;
        begin.b = m.target / grid_x_;
      } else {
        begin.index_count = 1;
        begin.a = m.target;
      }
    }
    log(begin);
    ++run_.executions;
    now_ += 1;  // entry method overhead: every execution lasts at least 1 µs
    if (m.entry == kEntryMain) {
      // Main::Main, the same in every pattern: start iteration 0 everywhere.
      compute(10);
      broadcast(kEntryAppStart, 16, 0);
    }
    switch (o_.pattern) {
      case CharmPattern::Jacobi2d: jacobi(m); break;
      case CharmPattern::ReductionTree: reduction_tree(m); break;
      case CharmPattern::Ampi: ampi(m); break;
    }
    SimRecord end = begin;
    end.type = kSimEndProcessing;
    end.time_us = now_;
    log(end);
    busy_[pe] = now_;
  }

  // ---- jacobi2d ----
  void jacobi(const Message& m) {
    const std::int32_t c = m.target;
    switch (m.entry) {
      case kEntryAppStart: {
        compute(2);
        const std::int32_t x = c % grid_x_, y = c / grid_x_, gy = elements_ / grid_x_;
        const std::int32_t neighbours[4] = {y * grid_x_ + (x + 1) % grid_x_, y * grid_x_ + (x + grid_x_ - 1) % grid_x_,
                                            ((y + 1) % gy) * grid_x_ + x, ((y + gy - 1) % gy) * grid_x_ + x};
        for (std::int32_t n : neighbours) create(kEntryAppMessage, n, 1024, m.iteration);
        break;
      }
      case kEntryAppMessage: {
        std::int64_t& got = counter_[static_cast<std::size_t>(c)];
        if (++got < 4) break;
        got = 0;
        compute(work(40, c, m.iteration));
        create(kEntryContribute, location_[static_cast<std::size_t>(c)], 64, m.iteration);
        break;
      }
      case kEntryContribute:
        ++pe_local_[static_cast<std::size_t>(pe_)];
        reduction_step(m.iteration);
        break;
      case kEntryRecvMsg:
        ++pe_children_[static_cast<std::size_t>(pe_)];
        reduction_step(m.iteration);
        break;
      default: break;  // Main::done ends the run
    }
  }
  // CkReductionMgr on pe_: forwards up the PE tree once complete.
  void reduction_step(std::int32_t iteration) {
    auto pe = static_cast<std::size_t>(pe_);
    const std::int32_t children = (2 * pe_ + 1 < o_.pes) + (2 * pe_ + 2 < o_.pes);
    if (pe_local_[pe] < o_.chares_per_pe || pe_children_[pe] < children) return;
    pe_local_[pe] = pe_children_[pe] = 0;
    if (pe_ != 0)
      create(kEntryRecvMsg, (pe_ - 1) / 2, 64, iteration);
    else if (iteration + 1 < o_.iterations)
      broadcast(kEntryAppStart, 16, iteration + 1);
    else
      create(kEntryMainDone, 0, 64, iteration);
  }

  // ---- reduction-tree ----
  void reduction_tree(const Message& m) {
    const std::int32_t c = m.target;
    switch (m.entry) {
      case kEntryAppStart:
        compute(work(20, c, m.iteration));
        flag_[static_cast<std::size_t>(c)] = 1;
        tree_step(c, m.iteration);
        break;
      case kEntryAppMessage:
        ++counter_[static_cast<std::size_t>(c)];
        tree_step(c, m.iteration);
        break;
      case kEntryMainDone:
        if (m.iteration + 1 < o_.iterations) broadcast(kEntryAppStart, 16, m.iteration + 1);
        break;
      default: break;
    }
  }
  void tree_step(std::int32_t c, std::int32_t iteration) {
    auto i = static_cast<std::size_t>(c);
    const std::int32_t children = (2 * c + 1 < elements_) + (2 * c + 2 < elements_);
    if (!flag_[i] || counter_[i] < children) return;
    flag_[i] = 0;
    counter_[i] = 0;
    if (c == 0)
      create(kEntryMainDone, 0, 64, iteration);
    else
      create(kEntryAppMessage, (c - 1) / 2, 64, iteration);
  }

  // ---- ampi ----
  void ampi(const Message& m) {
    const std::int32_t v = m.target;
    switch (m.entry) {
      case kEntryAppStart:
        rank_iteration(v, 0);
        break;
      case kEntryAppMessage: {
        bracket(kEventRecv, v, [&] { compute(1); });
        std::int64_t& got = counter_[static_cast<std::size_t>(v) * 2 + static_cast<std::size_t>(m.iteration & 1)];
        if (++got < 2) break;
        got = 0;
        rank_iteration(v, m.iteration);
        break;
      }
      default: break;
    }
  }
  bool is_lb_step(std::int32_t iteration) const {
    for (const MigrateOption& mo : o_.migrations)
      if (mo.iteration == iteration) return true;
    return false;
  }
  void rank_iteration(std::int32_t v, std::int32_t iteration) {
    compute(work(100, v, iteration));
    if (iteration + 1 < o_.iterations) {
      const std::int32_t right = (v + 1) % elements_, left = (v + elements_ - 1) % elements_;
      bracket(kEventSend, v, [&] { create(kEntryAppMessage, right, 8192, iteration + 1); });
      bracket(kEventSend, v, [&] { create(kEntryAppMessage, left, 8192, iteration + 1); });
    }
    if (!is_lb_step(iteration)) return;
    bracket(kEventMigrate, v, [&] { compute(5); });
    for (const MigrateOption& mo : o_.migrations)
      if (mo.iteration == iteration && mo.vp == v) {
        location_[static_cast<std::size_t>(v)] = mo.pe;
        ready_[static_cast<std::size_t>(v)] = now_;
      }
  }

  const CharmSynthOptions& o_;
  CharmRun run_;
  std::int32_t elements_ = 0;
  std::int32_t grid_x_ = 1;
  std::vector<std::int64_t> busy_;
  std::vector<std::int32_t> next_event_;
  std::vector<std::int32_t> location_;
  std::vector<std::int64_t> ready_;
  std::vector<std::int64_t> counter_;
  std::vector<std::uint8_t> flag_;
  std::vector<std::int32_t> pe_local_;
  std::vector<std::int32_t> pe_children_;
  std::priority_queue<Message, std::vector<Message>, Later> queue_;
  std::int64_t seq_ = 0;
  std::int32_t pe_ = 0;
  std::int64_t now_ = 0;
};

}  // namespace

CharmPattern parse_charm_pattern(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kCharmPatternNames); ++i)
    if (name == kCharmPatternNames[i]) return static_cast<CharmPattern>(i);
  throw Error("unknown Projections pattern '" + std::string(name) + "' (jacobi2d, reduction-tree or ampi)");
}

std::string_view charm_pattern_name(CharmPattern pattern) {
  return kCharmPatternNames[static_cast<std::size_t>(pattern)];
}

MigrateOption parse_migrate(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::size_t at = text.find('@');
  if (colon == std::string_view::npos || at == std::string_view::npos || at < colon)
    throw Error("--migrate '" + std::string(text) + "': expected VP:PE@ITER");
  MigrateOption m;
  m.vp = parse_int(text.substr(0, colon), "VP", text);
  m.pe = parse_int(text.substr(colon + 1, at - colon - 1), "PE", text);
  m.iteration = parse_int(text.substr(at + 1), "ITER", text);
  return m;
}

void validate(const CharmSynthOptions& o) {
  if (o.pes < 1 || o.pes > kMaxProcs)
    throw Error("-n " + std::to_string(o.pes) + " is out of range (1.." + std::to_string(kMaxProcs) + ")");
  if (o.iterations < 1 || o.iterations > 1000000) throw Error("-i " + std::to_string(o.iterations) + " is out of range (1..1000000)");
  if (o.chares_per_pe < 1 || o.chares_per_pe > 4096)
    throw Error("--chares-per-pe " + std::to_string(o.chares_per_pe) + " is out of range (1..4096)");
  const std::int64_t elements =
      o.pattern == CharmPattern::Ampi ? (o.vps > 0 ? o.vps : o.pes) : std::int64_t{o.pes} * o.chares_per_pe;
  if (o.vps < 0 || elements > (std::int64_t{1} << 24))
    throw Error("too many chares (" + std::to_string(elements) + "; at most 16777216)");
  if (o.pattern != CharmPattern::Ampi && (o.vps > 0 || !o.migrations.empty()))
    throw Error("--vps and --migrate apply to the ampi pattern only");
  if (o.jitter < 0 || o.jitter > 1) throw Error("--jitter must be within 0..1");
  for (const Delay& d : o.delays)
    if (d.rank < 0 || d.rank >= elements || d.iteration < 0 || d.iteration >= o.iterations || !(d.factor > 0))
      throw Error("--delay " + std::to_string(d.rank) + ":" + std::to_string(d.iteration) +
                  ": CHARE must be below " + std::to_string(elements) + ", ITER below " + std::to_string(o.iterations) +
                  " and FACTOR positive");
  for (const MigrateOption& m : o.migrations)
    if (m.vp < 0 || m.vp >= elements || m.pe < 0 || m.pe >= o.pes || m.iteration < 0 || m.iteration >= o.iterations)
      throw Error("--migrate " + std::to_string(m.vp) + ":" + std::to_string(m.pe) + "@" + std::to_string(m.iteration) +
                  ": VP must be below " + std::to_string(elements) + ", PE below " + std::to_string(o.pes) +
                  " and ITER below " + std::to_string(o.iterations));
}

CharmRun simulate_charm(const CharmSynthOptions& options) {
  validate(options);
  Simulator sim(options);
  return sim.run();
}

}  // namespace weft::synth
