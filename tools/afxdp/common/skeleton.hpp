// A libbpf skeleton with one owner: `Skeleton<gen_tx, gen_tx__destroy> s(gen_tx__open());`
// destroys it (programs, maps, links) on every way out.
#pragma once

#include <memory>

namespace afxdp::tool {

template <auto destroy>
struct DestroySkeleton {
  template <class T>
  void operator()(T* skeleton) const noexcept {
    destroy(skeleton);
  }
};

template <class T, auto destroy>
using Skeleton = std::unique_ptr<T, DestroySkeleton<destroy>>;

}  // namespace afxdp::tool
