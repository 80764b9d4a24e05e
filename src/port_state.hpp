// What a Port owns, in the order it is released: the queues first (they point into the rings),
// then the programs (their XSKMAP slots), the sockets and the UMEMs.
#pragma once

#include <afxdp/detail/queue_kernel.hpp>
#include <afxdp/port.hpp>
#include <afxdp/xsk/umem.hpp>

#include "frame_owners.hpp"

#include <memory>
#include <new>
#include <span>
#include <vector>

namespace afxdp {

namespace detail {

// Queues at fixed addresses, side by side, so that Port::queues() is a span.
class QueueArray {
 public:
  QueueArray() = default;
  QueueArray(const QueueArray&) = delete;
  QueueArray& operator=(const QueueArray&) = delete;
  ~QueueArray() {
    for (std::size_t i = count_; i > 0; --i) queues()[i - 1].~Queue();
    if (storage_ != nullptr) ::operator delete (storage_, std::align_val_t{alignof(Queue)});
  }
  void build(const std::vector<QueueSetup>& setups) {
    storage_ = ::operator new (setups.size() * sizeof(Queue), std::align_val_t{alignof(Queue)});
    for (const QueueSetup& setup : setups) {
      new (queues() + count_) Queue(setup);
      ++count_;
    }
  }
  std::span<Queue> span() noexcept { return {queues(), count_}; }

 private:
  Queue* queues() noexcept { return static_cast<Queue*>(storage_); }
  void* storage_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace detail

struct Port::State {
  PortConfig config;
  std::vector<std::unique_ptr<Umem>> umems;
  std::vector<std::unique_ptr<Socket>> sockets;
  std::vector<std::unique_ptr<XskProgram>> programs;
  Steering steering;  // points into the programs' tables: declared after them, gone before
  detail::FrameOwners owners;
  std::size_t per_interface = 0;  // queues on each interface (queues() holds a's, then b's)
  // Whom each queue kicks (detail/queue_kernel.hpp): the sockets, or a test's double.
  std::vector<std::unique_ptr<detail::QueueKernel>> kernels;
  std::shared_ptr<void> backend;  // what else the queues' rings live in (testing::Loopback)
  detail::QueueArray queues;
};

}  // namespace afxdp
