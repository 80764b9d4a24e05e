// A libbpf skeleton with one owner: `Skeleton<gen_tx, gen_tx__destroy> s(gen_tx__open());`
// destroys it (programs, maps, links) on every way out. Each skeleton target's include path holds
// this header (afxdp_add_bpf_skeleton), so the library, the tool and the tests own theirs alike.
#pragma once

#include <memory>

namespace afxdp {

template <auto destroy>
struct DestroySkeleton {
  template <class T>
  void operator()(T* skeleton) const noexcept {
    destroy(skeleton);
  }
};

template <class T, auto destroy>
using Skeleton = std::unique_ptr<T, DestroySkeleton<destroy>>;

}  // namespace afxdp
