#pragma once
// std::vector storage whose resize() leaves new trivial elements
// uninitialized instead of zeroing them.
//
// Why: on this project's machines the first write to a fresh page costs
// ~1.5-2 ms per MB (the kernel zeroing it and the host backing it). A vector
// resized to hundreds of MB is zeroed by the one thread that resizes it; left
// uninitialized, the threads that fill it first-touch its pages side by side.
// Only for arrays that are written whole before they are read.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
 public:
  using Base::Base;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename std::allocator_traits<Base>::template rebind_alloc<U>>;
  };
  // Value-initialization (what resize(n) asks for) becomes default-
  // initialization: nothing for trivial types.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<Base>::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

template <class T>
using UninitializedVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace weft
