#include <gtest/gtest.h>

#include "common/region_kind.h"

using weft::RegionKind;
using weft::classify_region;

TEST(RegionKind, ClassifiesMpiCallsByName) {
  EXPECT_EQ(classify_region("MPI_Send", true), RegionKind::Send);
  EXPECT_EQ(classify_region("MPI_Ssend", true), RegionKind::Send);
  EXPECT_EQ(classify_region("MPI_Isend", true), RegionKind::Isend);
  EXPECT_EQ(classify_region("MPI_Recv", true), RegionKind::Recv);
  EXPECT_EQ(classify_region("MPI_Irecv", true), RegionKind::Irecv);
  EXPECT_EQ(classify_region("MPI_Waitall", true), RegionKind::Wait);
  EXPECT_EQ(classify_region("MPI_Test", true), RegionKind::Wait);
  EXPECT_EQ(classify_region("MPI_Allreduce", true), RegionKind::Collective);
  EXPECT_EQ(classify_region("MPI_Iallreduce", true), RegionKind::Collective);
  EXPECT_EQ(classify_region("MPI_Barrier", true), RegionKind::Collective);
  EXPECT_EQ(classify_region("MPI_Comm_split", true), RegionKind::MpiOther);
}

TEST(RegionKind, NonMpiNames) {
  EXPECT_EQ(classify_region("compute", false), RegionKind::Compute);
  EXPECT_EQ(classify_region("main", false), RegionKind::Compute);
  EXPECT_EQ(classify_region("MPI_", true), RegionKind::MpiOther);
  EXPECT_EQ(classify_region("MPI", false), RegionKind::Compute);
}
