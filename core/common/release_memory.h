#pragma once
// Gives a container's memory back to the allocator. `v = {}` does not: for
// std::vector it picks operator=(initializer_list), which empties the vector
// but keeps its capacity.
namespace weft {

template <class Container>
void release_memory(Container& c) {
  Container().swap(c);
}

}  // namespace weft
