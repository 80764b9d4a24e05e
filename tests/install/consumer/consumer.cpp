// Uses symbols from libafxdp.a (validate, Umem) and the header-only rings, so that building this
// checks the headers, the archive and its libbpf link needs. Run without arguments it needs no
// privilege: it only checks that validation from the installed library rejects a bad config.
#include <afxdp/afxdp.hpp>  // every floor's umbrella: each installed header compiles from here

#include <cstdio>
#include <stdexcept>

int main(int argc, char**) {
  std::printf("afxdp %s\n", afxdp::version_string);
  try {
    afxdp::validate(afxdp::UmemConfig{.frame_count = 0});
    std::fprintf(stderr, "consumer: frame_count 0 was accepted\n");
    return 1;
  } catch (const std::invalid_argument&) {
  }
  if (argc > 1) {  // never taken by the test; makes the linker resolve the control path
    afxdp::Umem umem({});
    afxdp::FillRing& fill = umem.fill();
    if (fill.reserve(1) == 1) fill.submit(1);
    afxdp::XskProgram program({.interface = "lo"});
  }
  return 0;
}
