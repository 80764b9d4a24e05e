// libFuzzer target: our consumer ring facing a hostile producer. The input drives a fake kernel
// that writes arbitrary producer indices and descriptors; the consumer must never report more
// entries than a ring holds, never hand out an entry it has not been given, and never read
// outside the descriptor array (AddressSanitizer watches the array, sized exactly).
#include <afxdp/rings/ring.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace {

struct Input {
  const std::uint8_t* data;
  std::size_t size;
  template <class T>
  bool take(T& value) {
    if (size < sizeof value) return false;
    std::memcpy(&value, data, sizeof value);
    data += sizeof value;
    size -= sizeof value;
    return true;
  }
};

constexpr std::uint32_t ring_size = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input input{data, size};
  std::uint32_t start = 0;
  if (!input.take(start)) return 0;
  std::uint32_t producer = start, consumer = start, flags = 0;
  auto entries = std::make_unique<xdp_desc[]>(ring_size);
  afxdp::RxRing ring({&producer, &consumer, &flags, entries.get(), ring_size});

  std::uint32_t held = 0;  // peeked, not yet released: never more than a ring
  std::uint8_t op = 0;
  while (input.take(op)) {
    switch (op % 4) {
      case 0: {  // the hostile kernel moves its producer anywhere and scribbles descriptors
        std::uint32_t jump = 0;
        input.take(jump);
        producer += jump;
        xdp_desc desc{};
        input.take(desc);
        entries[jump % ring_size] = desc;
        break;
      }
      case 1: {  // peek
        std::uint8_t max = 0;
        input.take(max);
        const std::uint32_t n = ring.peek(max);
        if (n > max || held + n > ring_size) std::abort();
        for (std::uint32_t i = 0; i < held + n; ++i) (void)ring.at(i).addr;
        held += n;
        break;
      }
      case 2:  // release what we hold
        ring.release(held);
        held = 0;
        break;
      default: {  // give some back
        std::uint8_t n = 0;
        input.take(n);
        const std::uint32_t back = n % (held + 1);
        ring.cancel(back);
        held -= back;
        break;
      }
    }
  }
  return 0;
}
