// The device logger's PTX (logger.cu compiled by nvcc at build time), for
// merging into instrumented modules (ptx_rewriter/instrument/merge_logger.h).
#ifndef BARRACUDA_DEVICE_LOGGER_LOGGER_PTX_H_
#define BARRACUDA_DEVICE_LOGGER_LOGGER_PTX_H_

#include <string_view>

namespace barracuda::device_logger {

// The whole PTX module text: .version 9.0, .target sm_75, .address_size 64.
std::string_view LoggerPtx();

}  // namespace barracuda::device_logger

#endif  // BARRACUDA_DEVICE_LOGGER_LOGGER_PTX_H_
