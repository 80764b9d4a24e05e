// The conformance programs' libbpf skeleton, owned. A case loads only the programs it needs
// (libbpf autoload), so a helper the kernel refuses in one program (bpf_xdp_adjust_meta, say)
// costs the cases of that program alone, not every case of the object.
#pragma once

#include "conformance_progs.skel.h"
#include "skeleton.hpp"

#include <algorithm>
#include <cerrno>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace afxdp::conformance {

using Skeleton = afxdp::Skeleton<conformance_progs, conformance_progs__destroy>;

// Opened, not loaded; every program but `programs` left out of a later load.
inline Skeleton open_programs(std::initializer_list<std::string_view> programs) {
  Skeleton skeleton(conformance_progs__open());
  if (!skeleton) throw std::system_error(errno, std::generic_category(), "open conformance_progs");
  for (const std::string_view name : programs) {
    if (bpf_object__find_program_by_name(skeleton->obj, std::string(name).c_str()) == nullptr) {
      throw std::invalid_argument("conformance_progs has no program " + std::string(name));
    }
  }
  bpf_program* program = nullptr;
  bpf_object__for_each_program(program, skeleton->obj) {
    const bool wanted = std::find(programs.begin(), programs.end(),
                                  std::string_view(bpf_program__name(program))) != programs.end();
    if (bpf_program__set_autoload(program, wanted) != 0) {
      throw std::system_error(errno, std::generic_category(),
                              std::string("set autoload of ") + bpf_program__name(program));
    }
  }
  return skeleton;
}

// Opened and loaded: `programs` only, and the maps.
inline Skeleton load_programs(std::initializer_list<std::string_view> programs) {
  Skeleton skeleton = open_programs(programs);
  if (conformance_progs__load(skeleton.get()) != 0) {
    std::string names;
    for (const std::string_view name : programs)
      names += (names.empty() ? "" : ", ") + std::string(name);
    throw std::system_error(errno, std::generic_category(),
                            "load conformance_progs (" + names + ")");
  }
  return skeleton;
}

}  // namespace afxdp::conformance
