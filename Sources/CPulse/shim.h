#ifndef PARLEY_CPULSE_SHIM_H
#define PARLEY_CPULSE_SHIM_H
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>

#ifdef __linux__
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sets the nice value of the calling thread only (Linux: a thread id is a PRIO_PROCESS target).
   Returns 0 on success, -1 with errno set (EACCES/EPERM without CAP_SYS_NICE or RLIMIT_NICE). */
static inline int parley_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

/* The nice value of the calling thread, or 0 if it cannot be read. */
static inline int parley_get_thread_nice(void) {
    errno = 0;
    int n = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    return (n == -1 && errno != 0) ? 0 : n;
}

/* poll() with a timeout in nanoseconds (ppoll is behind _GNU_SOURCE, which Swift's Glibc does not set). */
static inline int parley_poll_nanoseconds(struct pollfd *fds, nfds_t count, unsigned long long nanoseconds) {
    struct timespec t = { (time_t)(nanoseconds / 1000000000ULL), (long)(nanoseconds % 1000000000ULL) };
    return (int)syscall(SYS_ppoll, fds, count, &t, NULL, (size_t)8);
}

/* Names the calling thread (at most 15 characters show in top -H and ps -L). */
static inline void parley_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
#endif
#endif
