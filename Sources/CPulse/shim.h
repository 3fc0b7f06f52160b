#ifndef PARLEY_CPULSE_SHIM_H
#define PARLEY_CPULSE_SHIM_H
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sets the nice value of the calling thread only (Linux: a thread id is a PRIO_PROCESS target).
   Returns 0 on success, -1 with errno set (EACCES/EPERM without CAP_SYS_NICE or RLIMIT_NICE). */
static inline int parley_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}
#endif
#endif
