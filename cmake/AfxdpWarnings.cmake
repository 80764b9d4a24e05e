# One warning set for every target of ours; AFXDP_WERROR turns them into errors (CI does).
add_library(afxdp_warnings INTERFACE)
target_compile_options(afxdp_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
  $<$<BOOL:${AFXDP_WERROR}>:-Werror>)
