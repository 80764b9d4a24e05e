# cmake -DBUILD_DIR=.. -DWORK_DIR=.. -DCONSUME=find_package|pkg-config -DSOURCE_DIR=..
#       -DHANDLER_TEST=examples/test_your_handler.cpp [-DCXX=.. -DCXX_FLAGS=.. -DLINKER_FLAGS=..]
#       -P run_consumer.cmake
# Installs the build tree into a fresh prefix, then configures, builds and runs the consumer
# project (with a copy of HANDLER_TEST, as a user would copy it) against that prefix alone; with
# find_package, also the examples as installed (share/doc/libafxdp-dev/examples, a project of
# their own), running test_your_handler among them.
set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${command}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()

step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# Nothing but the installed tree: no system-wide afxdp, no build tree on the search paths.
set(ENV{PKG_CONFIG_PATH} "")
file(GLOB_RECURSE pc_files ${prefix}/*/afxdp.pc)
foreach(pc IN LISTS pc_files)
  get_filename_component(pc_dir ${pc} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} ${pc_dir})
endforeach()
file(COPY ${HANDLER_TEST} DESTINATION ${WORK_DIR}/copied)
get_filename_component(handler_test ${HANDLER_TEST} NAME)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${consumer_build} -DAFXDP_CONSUME=${CONSUME}
     -DHANDLER_TEST=${WORK_DIR}/copied/${handler_test}
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
     -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
     "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
step(${CMAKE_COMMAND} --build ${consumer_build})
step(${consumer_build}/consumer)
step(${consumer_build}/test_your_handler)
if(EXISTS ${consumer_build}/rings_only)
  step(${consumer_build}/rings_only)
endif()

if(CONSUME STREQUAL "find_package")
  set(examples ${prefix}/share/doc/libafxdp-dev/examples)
  if(NOT EXISTS ${examples}/CMakeLists.txt)
    message(FATAL_ERROR "no examples project installed in ${examples}")
  endif()
  # Debug: built to check that they build and link, not to run fast (the system tier runs them).
  step(${CMAKE_COMMAND} -S ${examples} -B ${WORK_DIR}/examples -DCMAKE_BUILD_TYPE=Debug
       -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
       -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
       "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
  step(${CMAKE_COMMAND} --build ${WORK_DIR}/examples --parallel 2)
  step(${WORK_DIR}/examples/test_your_handler)
endif()
