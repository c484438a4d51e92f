#include "otf2/otf2_process_layout.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace weft::db {
namespace {

int location_type_order(int type) {
  switch (type) {
    case OTF2_LOCATION_TYPE_CPU_THREAD: return 0;
    case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM: return 1;
    case OTF2_LOCATION_TYPE_METRIC: return 2;
    default: return 3;
  }
}

const char* location_kind(int type) {
  switch (type) {
    case OTF2_LOCATION_TYPE_CPU_THREAD: return "cpu";
    case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM: return "gpu";
    case OTF2_LOCATION_TYPE_METRIC: return "metric";
    default: return "other";
  }
}

const Otf2GroupDef* find_group(const Otf2Definitions& defs, std::uint32_t ref) {
  for (const Otf2GroupDef& g : defs.groups)
    if (g.ref == ref) return &g;
  return nullptr;
}

// The COMM_LOCATIONS group of a paradigm: member i is the location of rank i.
const Otf2GroupDef* comm_locations_group(const Otf2Definitions& defs, int paradigm) {
  for (const Otf2GroupDef& g : defs.groups)
    if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g.paradigm == paradigm) return &g;
  return nullptr;
}

std::unordered_map<std::uint64_t, std::int64_t> mpi_rank_of_location(const Otf2Definitions& defs) {
  std::unordered_map<std::uint64_t, std::int64_t> rank_of;
  if (const Otf2GroupDef* world = comm_locations_group(defs, OTF2_PARADIGM_MPI))
    for (size_t r = 0; r < world->members.size(); ++r)
      rank_of.emplace(world->members[r], static_cast<std::int64_t>(r));
  return rank_of;
}

void resolve_comms(const Otf2Definitions& defs, ProcessLayout& layout) {
  for (const Otf2CommDef& def : defs.comms) {
    CommInfo comm;
    comm.ref = def.ref;
    comm.name = def.name;
    comm.parent = def.parent;
    if (const Otf2GroupDef* group = find_group(defs, def.group)) {
      if (group->type == OTF2_GROUP_TYPE_COMM_SELF) {
        comm.self_like = true;
      } else {
        // COMM_GROUP members are ranks in the paradigm's COMM_LOCATIONS group;
        // a communicator over a COMM_LOCATIONS group lists locations directly.
        const Otf2GroupDef* locations = group->type == OTF2_GROUP_TYPE_COMM_LOCATIONS
                                            ? nullptr
                                            : comm_locations_group(defs, group->paradigm);
        for (std::uint64_t member : group->members) {
          std::uint64_t location = member;
          if (locations) location = member < locations->members.size()
                                        ? locations->members[member]
                                        : std::numeric_limits<std::uint64_t>::max();
          auto it = layout.process_of_location.find(location);
          comm.process_of_rank.push_back(it == layout.process_of_location.end() ? -1 : it->second);
        }
      }
    }
    layout.comm_index[def.ref] = static_cast<std::uint32_t>(layout.comms.size());
    layout.comms.push_back(std::move(comm));
  }
}

void assign_rank_processes(const Otf2Definitions& defs, ProcessLayout& layout) {
  std::unordered_map<std::uint32_t, ProcessIndex> master_of_group;
  for (const Otf2LocationDef& loc : defs.locations) {
    ProcessIndex p = layout.process_of_location.at(loc.ref);
    if (layout.processes[static_cast<size_t>(p)].rank >= 0) master_of_group[loc.group] = p;
  }
  layout.rank_process.resize(layout.processes.size());
  for (const Otf2LocationDef& loc : defs.locations) {
    ProcessIndex p = layout.process_of_location.at(loc.ref);
    auto it = master_of_group.find(loc.group);
    layout.rank_process[static_cast<size_t>(p)] = it == master_of_group.end() ? p : it->second;
  }
}

}  // namespace

ProcessLayout build_process_layout(const Otf2Definitions& defs) {
  auto rank_of = mpi_rank_of_location(defs);

  // A location group sorts by the smallest MPI rank among its locations.
  std::unordered_map<std::uint32_t, std::int64_t> group_rank;
  for (const Otf2LocationDef& loc : defs.locations) {
    auto r = rank_of.find(loc.ref);
    if (r == rank_of.end()) continue;
    auto [it, fresh] = group_rank.emplace(loc.group, r->second);
    if (!fresh) it->second = std::min(it->second, r->second);
  }
  auto rank_of_group = [&](std::uint32_t group) {
    auto it = group_rank.find(group);
    return it == group_rank.end() ? std::numeric_limits<std::int64_t>::max() : it->second;
  };

  std::vector<const Otf2LocationDef*> order;
  for (const Otf2LocationDef& loc : defs.locations) order.push_back(&loc);
  std::sort(order.begin(), order.end(), [&](const Otf2LocationDef* a, const Otf2LocationDef* b) {
    return std::make_tuple(rank_of_group(a->group), a->group, location_type_order(a->type), a->ref) <
           std::make_tuple(rank_of_group(b->group), b->group, location_type_order(b->type), b->ref);
  });

  ProcessLayout layout;
  for (const Otf2LocationDef* loc : order) {
    ProcessInfo p;
    p.location_ref = loc->ref;
    p.kind = location_kind(loc->type);
    p.expected_records = loc->event_count;
    for (const Otf2LocationGroupDef& g : defs.location_groups)
      if (g.ref == loc->group) p.group_name = g.name;
    auto r = rank_of.find(loc->ref);
    if (r != rank_of.end()) p.rank = r->second;
    std::int64_t group_rank_value = rank_of_group(loc->group);
    std::string prefix = group_rank_value != std::numeric_limits<std::int64_t>::max()
                             ? "Rank " + std::to_string(group_rank_value)
                             : p.group_name;
    std::string own = loc->name.empty() ? "location " + std::to_string(loc->ref) : loc->name;
    if (p.rank >= 0)
      p.name = "Rank " + std::to_string(p.rank);
    else
      p.name = prefix.empty() ? own : prefix + " / " + own;
    layout.process_of_location[loc->ref] = static_cast<ProcessIndex>(layout.processes.size());
    layout.processes.push_back(std::move(p));
  }
  assign_rank_processes(defs, layout);
  resolve_comms(defs, layout);
  return layout;
}

}  // namespace weft::db
