// Exit codes of barracudad (README.md). The CLI maps them to its own.
#ifndef BARRACUDA_HOST_DETECTOR_DAEMON_DAEMON_EXIT_CODES_H_
#define BARRACUDA_HOST_DETECTOR_DAEMON_DAEMON_EXIT_CODES_H_

namespace barracuda::daemon {

inline constexpr int kDaemonOk = 0;              // reports written (races or not: see the verdict)
inline constexpr int kDaemonAnalysisErrors = 1;  // reports written, but records were lost or malformed
inline constexpr int kDaemonUsage = 2;           // bad command line
inline constexpr int kDaemonNoSession = 3;       // the segment could not be created / attached
inline constexpr int kDaemonReportFailed = 4;    // a report could not be written

}  // namespace barracuda::daemon

#endif  // BARRACUDA_HOST_DETECTOR_DAEMON_DAEMON_EXIT_CODES_H_
