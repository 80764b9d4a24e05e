# Debian's build flags (dpkg-buildflags with hardening=+all, as dpkg-buildpackage passes them:
# -fstack-protector-strong, -D_FORTIFY_SOURCE=2, -Wformat -Werror=format-security, -z relro -z now)
# added to every target's, when AFXDP_DEBIAN_FLAGS is on (the release preset, and the package
# preset that inherits it). So the release build CI makes once, for the examples, the benchmarks
# and the cost guard, is also the build scripts/package packs: what is measured is what ships.
# Left out: -g and -O2. The build type sets the optimisation (Release: -O3, after these flags in
# any case), and -g would only be stripped again (CPACK_STRIP_FILES, --strip-debug of libafxdp.a):
# GCC emits the same code with and without it, and the tree stays a third of the size.
option(AFXDP_DEBIAN_FLAGS "Add Debian's hardening flags (dpkg-buildflags) to every target" OFF)
if(AFXDP_DEBIAN_FLAGS)
  find_program(AFXDP_DPKG_BUILDFLAGS dpkg-buildflags REQUIRED)
  function(afxdp_debian_flags out)
    set(ENV{DEB_BUILD_MAINT_OPTIONS} hardening=+all)
    set(all "")
    foreach(kind IN LISTS ARGN)
      # -ffile-prefix-map=<here>=. is computed from the working directory: the source tree's.
      execute_process(COMMAND ${AFXDP_DPKG_BUILDFLAGS} --get ${kind}
                      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE flags
                      OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
      string(APPEND all " ${flags}")
    endforeach()
    separate_arguments(all UNIX_COMMAND "${all}")
    list(REMOVE_ITEM all -g -O2)
    list(JOIN all " " all)
    set(${out} "${all}" PARENT_SCOPE)
  endfunction()
  afxdp_debian_flags(afxdp_c_flags CFLAGS CPPFLAGS)
  afxdp_debian_flags(afxdp_cxx_flags CXXFLAGS CPPFLAGS)
  afxdp_debian_flags(afxdp_ld_flags LDFLAGS)
  string(APPEND CMAKE_C_FLAGS " ${afxdp_c_flags}")
  string(APPEND CMAKE_CXX_FLAGS " ${afxdp_cxx_flags}")
  string(APPEND CMAKE_EXE_LINKER_FLAGS " ${afxdp_ld_flags}")
  string(APPEND CMAKE_SHARED_LINKER_FLAGS " ${afxdp_ld_flags}")
  message(STATUS "Debian's flags (AFXDP_DEBIAN_FLAGS): ${afxdp_cxx_flags} ${afxdp_ld_flags}")
endif()
