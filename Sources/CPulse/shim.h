#ifndef PARLEY_CPULSE_SHIM_H
#define PARLEY_CPULSE_SHIM_H
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>

#ifdef __linux__
#include <errno.h>
#include <pthread.h>
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

/* Names the calling thread (at most 15 characters show in top -H and ps -L). */
static inline void parley_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
#endif
#endif
