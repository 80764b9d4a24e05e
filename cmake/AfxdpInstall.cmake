# Install and export, in two components (the Debian packages of AfxdpPackage.cmake): `tool` (the
# `afxdp` tool when built, afxdp-demo, the man pages, the bash completion) and `dev` (headers,
# libafxdp.a, libafxdp-testing.a, the header-only afxdp::rings, a CMake package (find_package(afxdp) -> afxdp::afxdp,
# afxdp::rings, afxdp::testing), pkg-config files (afxdp.pc, afxdp-testing.pc), and the README,
# docs/ and examples/ in share/doc/libafxdp-dev).
# Included last from the top CMakeLists.txt, once every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(AFXDP_LIBBPF_MIN 1.1)
set(AFXDP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/afxdp)

# The frame ledger changes the layout of afxdp::Queue (include/afxdp/frame_ledger.hpp): whoever
# includes the installed headers must see the define the library was built with, or the Queue
# objects libafxdp.a makes are not the ones their code reads (Port::queues()[1] lands mid-object).
set(AFXDP_PC_DEFINES "")
if(AFXDP_FRAME_LEDGER)
  target_compile_definitions(afxdp_rings INTERFACE $<INSTALL_INTERFACE:AFXDP_FRAME_LEDGER>)
  string(APPEND AFXDP_PC_DEFINES " -DAFXDP_FRAME_LEDGER")
endif()
# A checked library writes and reads on-tx marks the inline loops must write too (src/CMakeLists.txt).
if(AFXDP_RING_CHECKS)
  target_compile_definitions(afxdp_rings INTERFACE $<INSTALL_INTERFACE:AFXDP_RING_CHECKS>)
  string(APPEND AFXDP_PC_DEFINES " -DAFXDP_RING_CHECKS")
endif()

set_target_properties(afxdp_rings PROPERTIES EXPORT_NAME rings)
set_target_properties(afxdp PROPERTIES EXPORT_NAME afxdp)
set_target_properties(afxdp_testing PROPERTIES EXPORT_NAME testing)
install(TARGETS afxdp_rings afxdp afxdp_testing EXPORT afxdpTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET afxdp_cli)
  install(TARGETS afxdp_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tool)
  # `afxdp demo` execs it from there (tools/afxdp/demo/launcher.hpp).
  install(TARGETS afxdp_demo RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/afxdp
          COMPONENT tool)
  # Written by afxdp-docgen (target afxdp_reference, tools/afxdp/CMakeLists.txt).
  set(reference ${PROJECT_BINARY_DIR}/tools/afxdp/reference)
  install(DIRECTORY ${reference}/man8/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT tool
          FILES_MATCHING PATTERN "*.8.gz")
  install(FILES ${reference}/bash-completion/afxdp
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT tool)
endif()

# The public headers, and the generated version header next to them.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/afxdp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/afxdp/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/afxdp COMPONENT dev)

install(EXPORT afxdpTargets NAMESPACE afxdp:: DESTINATION ${AFXDP_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/afxdpConfig.cmake.in
  ${PROJECT_BINARY_DIR}/afxdpConfig.cmake INSTALL_DESTINATION ${AFXDP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/afxdpConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/afxdpConfig.cmake ${PROJECT_BINARY_DIR}/afxdpConfigVersion.cmake
        DESTINATION ${AFXDP_CMAKE_DIR} COMPONENT dev)

# pkg-config: prefix is found from the .pc file's own place (${pcfiledir}), so the tree relocates.
file(RELATIVE_PATH AFXDP_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" AFXDP_PC_TO_PREFIX "${AFXDP_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/afxdp.pc.in ${PROJECT_BINARY_DIR}/afxdp.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/afxdp-testing.pc.in ${PROJECT_BINARY_DIR}/afxdp-testing.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/afxdp.pc ${PROJECT_BINARY_DIR}/afxdp-testing.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# What the README points to, laid out as in the source tree so that its links hold: README.md,
# docs/ (its Markdown, the benchmarks' log in parts, the charts of benchmarks.md) and examples/,
# whose CMakeLists.txt is a project of its own on the installed package (find_package(afxdp)). The
# examples run on the lab's private network (namespace, veth pairs): its three sources go along
# as examples/lab/, built there as a part of the examples, never as a library of the package.
# The directory is the package's (share/doc/libafxdp-dev) in any prefix, so that a test of an
# installed tree finds the examples where the package puts them.
set(AFXDP_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/libafxdp-dev)
file(GLOB afxdp_doc_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md
     ${PROJECT_SOURCE_DIR}/docs/*.svg)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${AFXDP_DOC_DIR} COMPONENT dev)
install(FILES ${afxdp_doc_files} DESTINATION ${AFXDP_DOC_DIR}/docs COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/benchmarks-log DESTINATION ${AFXDP_DOC_DIR}/docs
        COMPONENT dev FILES_MATCHING PATTERN "*.md")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${AFXDP_DOC_DIR}/examples
        COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/lab/lab.hpp
              ${PROJECT_SOURCE_DIR}/lab/lab.cpp
              ${PROJECT_SOURCE_DIR}/lab/napi_threads.cpp
        DESTINATION ${AFXDP_DOC_DIR}/examples/lab COMPONENT dev)
