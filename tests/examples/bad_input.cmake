# cmake -DPROGRAM=path "-DARGS=a;b" -P bad_input.cmake
# Bad input must end PROGRAM with one line on stderr, nothing on stdout, and a non-zero exit
# code: not 0, and not a signal (an uncaught exception aborts).
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 20)
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: ended by '${rc}' instead of an exit code\n${err}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: accepted (exit code 0)\n${out}")
endif()
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines lines)
if(NOT lines EQUAL 1 OR NOT err MATCHES "\n$")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: stderr is not one line:\n${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: wrote to stdout:\n${out}")
endif()
message(STATUS "${PROGRAM} ${ARGS}: exit code ${rc}: ${err}")
