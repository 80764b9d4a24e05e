// afxdp::rings alone: the header-only rings, no library to link.
#include <afxdp/frame_pool.hpp>
#include <afxdp/ring.hpp>

int main() {
  afxdp::FramePool pool(4, 2048);
  afxdp::FillRing ring;
  return pool.available() == 4 && ring.size() == 0 ? 0 : 1;
}
