# afxdp_add_bpf_skeleton(target SOURCE x.bpf.c)
# Compiles a BPF program with clang -target bpf and turns the object into a libbpf skeleton header
# (x.skel.h) with bpftool, so the object is embedded in our binary: nothing is searched on disk
# at run time. `target` is an INTERFACE library whose include path holds the generated header,
# and bpf/skeleton.hpp: afxdp::Skeleton, its one owner.
find_program(AFXDP_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(AFXDP_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-multiarch
                OUTPUT_VARIABLE AFXDP_MULTIARCH OUTPUT_STRIP_TRAILING_WHITESPACE)

function(afxdp_add_bpf_skeleton target)
  cmake_parse_arguments(P "" "SOURCE" "DEPENDS" ${ARGN})
  get_filename_component(stem ${P_SOURCE} NAME_WE)   # "xsk_redirect" from xsk_redirect.bpf.c
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/skel)
  set(obj ${out_dir}/${stem}.bpf.o)
  set(skel ${out_dir}/${stem}.skel.h)
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${AFXDP_CLANG} -g -O2 -target bpf -Wall -Werror
            -I${CMAKE_CURRENT_SOURCE_DIR} -idirafter /usr/include/${AFXDP_MULTIARCH}
            -c ${CMAKE_CURRENT_SOURCE_DIR}/${P_SOURCE} -o ${obj}
    COMMAND ${AFXDP_BPFTOOL} gen skeleton ${obj} name ${stem} > ${skel}
    DEPENDS ${P_SOURCE} ${P_DEPENDS}
    COMMENT "BPF skeleton ${stem}.skel.h"
    VERBATIM)
  add_custom_target(${target}_gen DEPENDS ${skel})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_gen)
  target_include_directories(${target} SYSTEM INTERFACE ${out_dir})
  target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR}/bpf)
endfunction()
