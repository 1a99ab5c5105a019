#include "validation/mpi/FatalSignals.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace quorum::mpi {

namespace {

std::atomic<int> g_rank{-1};
std::atomic<long long> g_step{-1};
std::atomic<bool> g_aborting{false};
constexpr std::size_t kReportBytes = 8192;
char g_reports[2][kReportBytes];
std::atomic<int> g_report{-1};
struct sigaction g_previous[32];

void write_all(const char* text, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}

// Appends a decimal number (async-signal-safe).
std::size_t append_number(char* out, std::size_t at, long long v) {
  char digits[24];
  std::size_t n = 0;
  const bool negative = v < 0;
  unsigned long long u = negative ? static_cast<unsigned long long>(-(v + 1)) + 1 : static_cast<unsigned long long>(v);
  do {
    digits[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u > 0);
  if (negative) out[at++] = '-';
  while (n > 0) out[at++] = digits[--n];
  return at;
}

std::size_t append_text(char* out, std::size_t at, const char* text) {
  const std::size_t n = std::strlen(text);
  std::memcpy(out + at, text, n);
  return at + n;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

void chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, context);
  } else if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN &&
             prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void on_fatal(int sig, siginfo_t* info, void* context) {
  char line[256];
  std::size_t n = 0;
  n = append_text(line, n, "quorum: rank ");
  n = append_number(line, n, g_rank.load());
  n = append_text(line, n, " died of ");
  n = append_text(line, n, signal_name(sig));
  const long long step = g_step.load();
  if (step >= 0) {
    n = append_text(line, n, " in step ");
    n = append_number(line, n, step);
  } else {
    n = append_text(line, n, " before its first step");
  }
  line[n++] = '\n';
  write_all(line, n);
  chain(sig, info, context);
}

void on_terminate(int sig, siginfo_t* info, void* context) {
  const int which = g_report.load();
  if (!g_aborting.load() && which >= 0) write_all(g_reports[which], std::strlen(g_reports[which]));
  chain(sig, info, context);
}

void install(int sig, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  ::sigaction(sig, &action, &g_previous[sig]);
}

}  // namespace

void install_fatal_signal_reporting(int rank) {
  g_rank = rank;
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) install(sig, on_fatal);
  install(SIGTERM, on_terminate);
}

void report_current_step(std::int64_t step) { g_step = static_cast<long long>(step); }

void set_termination_report(const std::string& text) {
  const int next = g_report.load() == 0 ? 1 : 0;
  const std::size_t n = std::min(text.size(), kReportBytes - 1);
  std::memcpy(g_reports[next], text.data(), n);
  g_reports[next][n] = '\0';
  g_report = text.empty() ? -1 : next;
}

void mark_aborting() { g_aborting = true; }

}  // namespace quorum::mpi
