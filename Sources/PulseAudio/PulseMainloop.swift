import CPulse
import ParleyTime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The audio thread: libpulse's `pa_mainloop` run on a thread of its own ("parley-audio"), locked the way
/// `pa_threaded_mainloop` is (one recursive lock, held while callbacks run and released while the loop
/// polls), with one difference: the capture stream can say that nothing the server sends is of use to it for
/// a while (`holdData(until:)`: its chunk cannot be complete before then), and until then the loop
/// wakes for its own wake-ups (another thread writing reply audio, flushing, corking, closing) and its timers,
/// not for the server's data. The data waits in the socket and is read at once when the hold ends.
///
/// Why: a server hands a record stream each piece its source posts, whatever the stream's fragment size asks.
/// While another program records the same source with a short latency (a call in a browser; the side-by-side
/// benchmark's 2.5 ms recorders), the pieces shrink to a few milliseconds and the thread woke for every one:
/// 500 wake-ups a second where a 20 ms chunk needs 50 (`PulseDaemonTests`), and the audio thread's CPU
/// time grows with them.
///
/// How it knows its own wake-ups: `pa_mainloop` puts its wake-up pipe first in the descriptors it polls
/// (`rebuild_pollfds`: `pollfds[0]`); the hold applies only when that descriptor is a pipe, so a libpulse
/// that ordered them otherwise would only lose the batching.
final class PulseMainloop: @unchecked Sendable {
    /// The `pa_mainloop`, for its API (timers, the context).
    private let mainloop: OpaquePointer
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The loop thread's `pthread_t` while it runs (0 before and after).
    private let loopThread = Atomic<UInt>(0)
    /// Until when (monotonic ns) the server's data does not wake the loop; 0: no hold.
    private let holdUntil = Atomic<UInt64>(0)
    private var thread: pthread_t?
    /// The wake-up pipe's descriptor as last checked (loop thread only), and whether it is a pipe.
    private var checkedDescriptor: Int32 = -1
    private var descriptorIsPipe = false
    /// Whether the server's data was already waiting when the last hold ended (loop thread only): then the
    /// time of this wake-up says nothing about when the data arrived.
    private(set) var dataWaitedThroughHold = false

    /// Polls that returned with something to dispatch (a descriptor ready).
    private let wakeupCount = Atomic<Int>(0)
    /// Holds that ended with nothing of the server's waiting (the loop then waits again, for the data).
    private let emptyHoldCount = Atomic<Int>(0)

    /// A loop, not yet running.
    init() throws(PulseAudioError) {
        guard let ml = pa_mainloop_new() else { throw .connectionFailed(server: "", reason: "out of memory") }
        mainloop = ml
        mutex = .allocate(capacity: 1)
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutexattr_setprotocol(&attr, Int32(PTHREAD_PRIO_INHERIT))
        pthread_mutex_init(mutex, &attr)
        pthread_mutexattr_destroy(&attr)
        pa_mainloop_set_poll_func(ml, { fds, count, timeout, userdata in
            guard let fds, let userdata else { return -1 }
            return Unmanaged<PulseMainloop>.fromOpaque(userdata).takeUnretainedValue().poll(fds, count, timeout)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        stop()
        pa_mainloop_free(mainloop)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The loop's API, for contexts and timers.
    var api: UnsafeMutablePointer<pa_mainloop_api>? { pa_mainloop_get_api(mainloop) }

    /// Starts the thread; false if it could not be created. Signals stay with the other threads (the loop
    /// thread blocks them all, as `pa_threaded_mainloop` does).
    func start() -> Bool {
        guard thread == nil else { return true }
        var all = sigset_t()
        var previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &previous)  // the new thread inherits the mask
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var t = pthread_t()
        let retained = Unmanaged.passRetained(self).toOpaque()
        guard pthread_create(&t, nil, { arg in
            guard let arg else { return nil }
            let loop = Unmanaged<PulseMainloop>.fromOpaque(arg).takeRetainedValue()
            loop.run()
            return nil
        }, retained) == 0 else {
            Unmanaged<PulseMainloop>.fromOpaque(retained).release()
            return false
        }
        thread = t
        return true
    }

    /// Stops the thread and waits for it (not from the loop thread).
    func stop() {
        guard let t = thread else { return }
        precondition(!inThread, "PulseMainloop.stop from its own thread")
        lock()
        pa_mainloop_quit(mainloop, 0)
        unlock()
        pthread_join(t, nil)
        thread = nil
    }

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        raiseThreadPriority(name: "parley-audio")
        lock()
        var result: Int32 = 0
        _ = pa_mainloop_run(mainloop, &result)
        unlock()
        loopThread.store(0, ordering: .releasing)
    }

    /// Whether the caller is the loop thread.
    var inThread: Bool {
        let t = loopThread.load(ordering: .acquiring)
        return t != 0 && pthread_equal(pthread_t(t), pthread_self()) != 0
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Nothing the server sends is of use before `deadline` (`TimeSource.monotonic` ns): the loop's own
    /// wake-ups and timers still wake it at once. A later call replaces an earlier one; 0 ends a hold.
    func holdData(until deadline: UInt64) {
        holdUntil.store(deadline, ordering: .relaxed)
    }

    /// How often the loop woke with something to dispatch, since it started.
    var wakeups: Int { wakeupCount.load(ordering: .relaxed) }

    /// How many holds ended before the server's data came, since the loop started.
    var holdsEndedEmpty: Int { emptyHoldCount.load(ordering: .relaxed) }

    // MARK: - Polling

    /// `pa_mainloop`'s poll, called with the lock held: releases it while waiting.
    private func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: UInt, _ timeout: Int32) -> Int32 {
        unlock()
        defer { lock() }
        var timeout = timeout
        if count > 1, isWakeupPipe(fds[0].fd) {
            let start = TimeSource.monotonic.nanoseconds()
            let until = holdUntil.load(ordering: .relaxed)
            if until >= start + PollHold.shortestNanoseconds {
                let hold = PollHold(now: start, until: until, timeoutMilliseconds: timeout)
                let r = parley_poll_nanoseconds(fds, 1, hold.waitNanoseconds)
                if r != 0 || hold.timerFirst {
                    for i in 1..<Int(count) { fds[i].revents = 0 }
                    dataWaitedThroughHold = false  // nothing of the server's is dispatched on this wake-up
                    if r > 0 { wakeupCount.add(1, ordering: .relaxed) }
                    return r
                }
                let waiting = Glibc.poll(fds, nfds_t(count), 0)
                if waiting != 0 {
                    dataWaitedThroughHold = waiting > 0
                    if waiting > 0 { wakeupCount.add(1, ordering: .relaxed) }
                    return waiting
                }
                emptyHoldCount.add(1, ordering: .relaxed)
                timeout = hold.remainingTimeout(elapsedNanoseconds: TimeSource.monotonic.nanoseconds() - start)
            }
        }
        dataWaitedThroughHold = false
        let r = Glibc.poll(fds, nfds_t(count), timeout)
        if r > 0 { wakeupCount.add(1, ordering: .relaxed) }
        return r
    }

    private func isWakeupPipe(_ descriptor: Int32) -> Bool {
        if descriptor != checkedDescriptor {
            checkedDescriptor = descriptor
            var st = stat()
            descriptorIsPipe = fstat(descriptor, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO
        }
        return descriptorIsPipe
    }
}

/// One poll under a hold: wait on the wake-up pipe alone until the hold ends or the loop's next timer is due,
/// whichever comes first; then, if the hold ended first, poll everything for what is left of the timeout.
struct PollHold: Equatable {
    /// Holds shorter than this are not worth a poll of their own (0.25 ms).
    static let shortestNanoseconds: UInt64 = 250_000
    /// How long to wait on the wake-up pipe alone, in ns.
    let waitNanoseconds: UInt64
    /// Whether the loop's timer is due before the hold ends (then the poll returns 0 after the wait: the timer
    /// is dispatched, and the next poll holds again).
    let timerFirst: Bool
    /// The loop's timeout in ms (negative: none).
    let timeoutMilliseconds: Int32

    init(now: UInt64, until: UInt64, timeoutMilliseconds: Int32) {
        let hold = until > now ? until - now : 0
        self.timeoutMilliseconds = timeoutMilliseconds
        if timeoutMilliseconds >= 0, UInt64(timeoutMilliseconds) * 1_000_000 <= hold {
            waitNanoseconds = UInt64(timeoutMilliseconds) * 1_000_000
            timerFirst = true
        } else {
            waitNanoseconds = hold
            timerFirst = false
        }
    }

    /// The timeout for the poll of everything once the hold has ended `elapsedNanoseconds` after it began
    /// (rounded so the timer is dispatched no later than it would have been: at worst the loop looks once early).
    func remainingTimeout(elapsedNanoseconds: UInt64) -> Int32 {
        guard timeoutMilliseconds >= 0 else { return timeoutMilliseconds }
        let elapsed = Int32(clamping: (elapsedNanoseconds + 999_999) / 1_000_000)
        return max(0, timeoutMilliseconds - elapsed)
    }
}
