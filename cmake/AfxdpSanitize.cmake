# AFXDP_SANITIZE=address,undefined or thread: compile and link every target of ours with those
# sanitizers. The flags go into CMAKE_<LANG>_FLAGS and the linker flags (of this directory and
# below) because tests/install hands those to the consumer it builds against libafxdp.a.
if(AFXDP_SANITIZE STREQUAL "")
  return()
endif()
if(NOT AFXDP_SANITIZE MATCHES "^(address,undefined|address|undefined|thread)$")
  message(FATAL_ERROR "AFXDP_SANITIZE=${AFXDP_SANITIZE}: use address,undefined or thread")
endif()

set(afxdp_sanitize_compile "-fsanitize=${AFXDP_SANITIZE} -fno-omit-frame-pointer")
if(AFXDP_SANITIZE MATCHES "undefined")
  string(APPEND afxdp_sanitize_compile " -fno-sanitize-recover=all")  # a finding fails the test
endif()
if(AFXDP_SANITIZE MATCHES "address" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # g++ 12's -Wmaybe-uninitialized misfires under ASan in <regex>.
  string(APPEND afxdp_sanitize_compile " -Wno-maybe-uninitialized")
endif()
foreach(lang C CXX)
  string(APPEND CMAKE_${lang}_FLAGS " ${afxdp_sanitize_compile}")
endforeach()
foreach(kind EXE SHARED MODULE)
  string(APPEND CMAKE_${kind}_LINKER_FLAGS " -fsanitize=${AFXDP_SANITIZE}")
endforeach()
