#include "run/signals.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace dualgap {

namespace {
volatile sig_atomic_t g_received = 0;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
struct sigaction g_old[3];

extern "C" void record_signal(int sig) {
  if (g_received == 0) g_received = sig;
}
}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &g_old[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
}

int StopSignals::received() { return g_received; }

void child_after_fork(pid_t parent) {
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int s : kSignals) sigaction(s, &sa, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died between fork() and prctl(): then nobody would send the signal.
  if (getppid() != parent) _exit(1);
}

}  // namespace dualgap
