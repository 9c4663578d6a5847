/* LD_PRELOAD probe of LIBLINEAR's file reading, for bench/scale/parse.sh.
 *
 * liblinear-train's main (LIBLINEAR's train.c) parses its arguments, calls read_problem(file),
 * then check_parameter(&prob, &param), which it imports from liblinear.so. This library's
 * constructor starts a wall clock and takes the process's CPU time; its check_parameter prints
 * the time elapsed since (the file's reading, nearly all of it) and the problem's size, then
 * ends the process: no training is needed to time the reading.
 *
 *   cc -shared -fPIC -O2 read_problem_time.c -o read_problem_time.so
 *   LD_PRELOAD=./read_problem_time.so liblinear-train FILE
 * prints "read_problem\tEXAMPLES\tFEATURES\tWALL_S\tCPU_S" on stderr, exit status 0. */
#include <linear.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static struct timespec wall0, cpu0;

static double since(clockid_t clock, const struct timespec* t0) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

__attribute__((constructor)) static void start(void) {
  clock_gettime(CLOCK_MONOTONIC, &wall0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
}

const char* check_parameter(const struct problem* prob, const struct parameter* param) {
  (void)param;
  const double wall = since(CLOCK_MONOTONIC, &wall0), cpu = since(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  fprintf(stderr, "read_problem\t%d\t%d\t%.3f\t%.3f\n", prob->l, prob->n, wall, cpu);
  fflush(stderr);
  _exit(0);
}
