// The conformance programs' libbpf skeleton, owned: loaded whole or not at all.
#pragma once

#include "conformance_progs.skel.h"

#include <memory>
#include <stdexcept>

namespace afxdp::conformance {

struct SkeletonDeleter {
  void operator()(conformance_progs* skeleton) const noexcept {
    conformance_progs__destroy(skeleton);
  }
};
using Skeleton = std::unique_ptr<conformance_progs, SkeletonDeleter>;

inline Skeleton load_programs() {
  Skeleton skeleton(conformance_progs__open_and_load());
  if (!skeleton) throw std::runtime_error("cannot load conformance_progs");
  return skeleton;
}

}  // namespace afxdp::conformance
