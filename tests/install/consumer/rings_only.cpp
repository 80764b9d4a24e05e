// afxdp::rings alone: the header-only rings, no library to link.
#include <afxdp/rings.hpp>  // the floor's umbrella, with nothing but afxdp::rings

int main() {
  afxdp::FramePool pool(4, 2048);
  afxdp::FillRing ring;
  return pool.available() == 4 && ring.size() == 0 ? 0 : 1;
}
