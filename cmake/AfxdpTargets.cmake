# afxdp_add_test(name SOURCES a.cpp ... LABELS unit|system|conformance [THREADED] [LIBS ...])
# Each test binary links GoogleTest; gtest_discover_tests registers every TEST as its own ctest
# entry so that `ctest -L unit` and `ctest -L system` run the tiers. System tests get the main()
# of tests/support (private network namespace, or a skip with the reason); every test gets
# tests/support/expect_throw.hpp (EXPECT_THROW_WITH).
# THREADED (unit tests that run threads against each other): the label becomes `unit-threaded`,
# which `-L unit` still selects and the ThreadSanitizer run selects alone (`-L threaded`).
function(afxdp_add_test name)
  cmake_parse_arguments(T "THREADED" "" "SOURCES;LABELS;LIBS" ${ARGN})
  # One tier per test: gtest_discover_tests passes a list of labels on as separate words, so ctest
  # would see the first label only (the conformance cases once said "conformance system").
  list(LENGTH T_LABELS label_count)
  if(NOT label_count EQUAL 1 OR NOT T_LABELS MATCHES "^(unit|system|conformance)$")
    message(FATAL_ERROR "afxdp_add_test(${name}): LABELS takes one tier: unit, system or conformance")
  endif()
  set(label ${T_LABELS})
  if(T_THREADED)
    if(NOT T_LABELS STREQUAL "unit")
      message(FATAL_ERROR "afxdp_add_test(${name}): THREADED is for unit tests")
    endif()
    set(label unit-threaded)
  endif()
  add_executable(${name} ${T_SOURCES})
  if(T_LABELS MATCHES "^(system|conformance)$")  # root and a private network namespace
    target_link_libraries(${name} PRIVATE ${T_LIBS} afxdp_system_main afxdp_warnings)
  else()
    target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main afxdp_warnings)
  endif()
  target_link_libraries(${name} PRIVATE afxdp_test_expect)  # EXPECT_THROW_WITH (tests/support)
  gtest_discover_tests(${name} PROPERTIES LABELS "${label}" DISCOVERY_TIMEOUT 30)
  # `cmake --build ... --target unit_tests` builds just the unit tier (used for the TSan run).
  if("unit" IN_LIST T_LABELS)
    if(NOT TARGET unit_tests)
      add_custom_target(unit_tests)
    endif()
    add_dependencies(unit_tests ${name})
  endif()
  if(T_THREADED)  # `--target threaded_tests`: what the TSan run builds
    if(NOT TARGET threaded_tests)
      add_custom_target(threaded_tests)
    endif()
    add_dependencies(threaded_tests ${name})
  endif()
endfunction()

# afxdp_add_bench(name SOURCES a.cpp ... [LIBS ...]): built, never registered as a test.
function(afxdp_add_bench name)
  cmake_parse_arguments(B "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${B_SOURCES})
  target_link_libraries(${name} PRIVATE ${B_LIBS} benchmark::benchmark afxdp_warnings)
endfunction()
