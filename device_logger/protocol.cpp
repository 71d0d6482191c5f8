#include "device_logger/protocol.h"

namespace barracuda::protocol {

const char* OpName(Op op) {
  switch (op) {
    case Op::kRead: return "rd";
    case Op::kWrite: return "wr";
    case Op::kAtomic: return "atm";
    case Op::kAcquire: return "acq";
    case Op::kRelease: return "rel";
    case Op::kAcqRel: return "acqrel";
    case Op::kFence: return "fence";
    case Op::kBarrier: return "bar";
    case Op::kBarrierArrive: return "bar.arrive";
    case Op::kIf: return "if";
    case Op::kElse: return "else";
    case Op::kFi: return "fi";
    case Op::kWarpSync: return "warpsync";
    case Op::kKernelBegin: return "kernel.begin";
    case Op::kKernelEnd: return "kernel.end";
    case Op::kExit: return "exit";
    case Op::kAsyncWait: return "async-wait";
    case Op::kGridDepWait: return "grid-dependency-wait";
    case Op::kCount: break;
  }
  return "?";
}

}  // namespace barracuda::protocol
