# Debian packages through CPack (scripts/package): `afxdp` (component tool) and `libafxdp-dev`
# (component dev), built from the install rules of AfxdpInstall.cmake, so that a package holds
# exactly what `cmake --install` installs. Configure with CMAKE_INSTALL_PREFIX=/usr (the package
# preset does): the tool finds afxdp-demo through a path compiled in from the prefix.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME afxdp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PACKAGE_CONTACT "afxdp maintainers <maintainers@users.noreply.a-seed-9670672a.example>")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_STRIP_FILES ON)  # the executables; libafxdp.a below
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tool dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_TOOL_PACKAGE_NAME afxdp)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION net)
set(CPACK_DEBIAN_TOOL_PACKAGE_SHLIBDEPS ON)  # libbpf1, libpcap0.8, libstdc++6... as linked
set(CPACK_COMPONENT_TOOL_DESCRIPTION "AF_XDP benchmarks and tools
The afxdp tool runs the xdpsock benchmarks (rxdrop, txpush, l2fwd), a
traffic source through XDP live frames (gen), per-queue XDP counters
(rxq-info), an AF_XDP capture into pcap (dump), round-trip latency through
a reflector (latency, udp-echo), and a demo of all of them on a private
veth pair (afxdp demo).")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libafxdp-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# What afxdp.pc (Requires: libbpf) and afxdpConfig.cmake (pkg_check_modules(libbpf)) need, and
# afxdp-testing.pc (Requires: gtest_main); libbpf-dev brings libelf-dev and zlib1g-dev for a
# static link.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libbpf-dev (>= 1:${AFXDP_LIBBPF_MIN}), libgtest-dev, pkgconf | pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION "C++20 AF_XDP library (static) and its headers
afxdp is a C++20 library for AF_XDP sockets: a UMEM and the four rings
speaking the kernel's ring protocol, sockets, the XDP redirect program
attached through a bpf_link, and afxdp::Port, a data path that keeps every
ring rule. This package has the headers, libafxdp.a, the CMake package
(find_package(afxdp)), the pkg-config files (afxdp, afxdp-testing) and
libafxdp-testing.a (testing::Loopback), to unit-test packet handlers
without root, and in /usr/share/doc/libafxdp-dev the documentation and
the examples, a CMake project of their own on the installed library.")

# /usr/share/doc/PACKAGE/{copyright,changelog.Debian.gz}, which Debian policy asks of every
# package, and the lintian tags we keep, each with its reason (cmake/debian/*.lintian-overrides).
string(TIMESTAMP AFXDP_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
foreach(component tool dev)
  string(TOUPPER ${component} upper)
  set(package ${CPACK_DEBIAN_${upper}_PACKAGE_NAME})
  set(doc ${PROJECT_BINARY_DIR}/package-doc/${package})
  configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/changelog.in ${doc}/changelog.Debian @ONLY)
  execute_process(COMMAND gzip -9nf ${doc}/changelog.Debian)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/debian/copyright ${doc}/changelog.Debian.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/debian/${package}.lintian-overrides
          DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME ${package}
          COMPONENT ${component})
endforeach()

# CPack's strip leaves .comment, and does not touch libafxdp.a: both are stripped here as dh_strip
# would (the archive keeps its symbols), when the install strips (CPACK_STRIP_FILES, --strip).
set(AFXDP_STRIPPED_dev "${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:afxdp>")
if(TARGET afxdp_cli)
  set(AFXDP_STRIPPED_tool "${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:afxdp_cli>"
      "${CMAKE_INSTALL_LIBEXECDIR}/afxdp/$<TARGET_FILE_NAME:afxdp_demo>")
endif()
foreach(component tool dev)
  install(CODE "if(CMAKE_INSTALL_DO_STRIP)
    foreach(file ${AFXDP_STRIPPED_${component}})
      set(path \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/\${file}\")
      execute_process(COMMAND ${CMAKE_STRIP} --strip-debug --remove-section=.comment
        --remove-section=.note --enable-deterministic-archives \${path})
    endforeach()
  endif()" COMPONENT ${component})
endforeach()

include(CPack)
