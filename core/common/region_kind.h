#pragma once
#include <string_view>

#include "common/types.h"

namespace weft {

// Classifies a region by its name (and whether the trace says it is MPI).
// Used by every importer so that "MPI_Isend" means the same thing everywhere.
RegionKind classify_region(std::string_view name, bool is_mpi_paradigm);

}  // namespace weft
