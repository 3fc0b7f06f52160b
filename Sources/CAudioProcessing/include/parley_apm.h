/* A C interface to WebRTC's audio processing module (echo cancellation, noise suppression, gain control),
   so Swift can use it without C++ interop. One instance per capture stream; every function on one instance
   must be called from one thread at a time. */
#ifndef PARLEY_APM_H
#define PARLEY_APM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parley_apm parley_apm;

/* What to enable. Zero-initialised means everything off. */
typedef struct parley_apm_config {
    /* 8000, 16000, 32000 or 48000; both streams use it. Frames are 10 ms: sample_rate_hz / 100 samples. */
    int sample_rate_hz;
    /* Acoustic echo cancellation (AEC, the desktop canceller). */
    int echo_cancellation;
    /* 0 low, 1 moderate, 2 high: how hard the non-linear stage suppresses residual echo. */
    int suppression_level;
    /* A longer adaptive filter (128 ms instead of 48 ms) and more careful delay tracking. */
    int extended_filter;
    /* Estimate the far-to-near delay from the signals instead of trusting the reported delay only. */
    int delay_agnostic;
    /* Noise suppression: -1 off, 0 low, 1 moderate, 2 high, 3 very high. */
    int noise_suppression;
    /* Automatic gain control, adaptive digital: 0 off, 1 on. */
    int gain_control;
    /* Target level of the gain control, in -dBFS (0..31; 3 is WebRTC's default). */
    int gain_target_dbfs;
    /* A high-pass filter removing DC and rumble before the canceller: 0 off, 1 on. */
    int high_pass_filter;
} parley_apm_config;

/* Statistics of the canceller, in dB and ms; a field is -100 (dB) or -1 (ms) when not yet known. */
typedef struct parley_apm_metrics {
    /* Echo return loss enhancement, average over the last period. */
    float erle_db;
    /* Echo return loss: far-end power over echo power. */
    float erl_db;
    /* The estimated far-to-near delay (median and spread), in ms. */
    int delay_median_ms;
    int delay_std_ms;
    /* Fraction of delay estimates that would make the canceller perform poorly. */
    float fraction_poor_delays;
    /* Whether the last near-end frame held echo. */
    int stream_has_echo;
} parley_apm_metrics;

/* Creates an instance. On failure returns NULL and writes a message to `error` (if not NULL). */
parley_apm *parley_apm_create(const parley_apm_config *config, char *error, size_t error_size);

void parley_apm_destroy(parley_apm *apm);

/* Hands one 10 ms frame of the far end (what the speaker plays) to the canceller. Returns 0 or a negative
   WebRTC error code. */
int parley_apm_analyze_far(parley_apm *apm, const int16_t *samples, size_t count);

/* Processes one 10 ms frame of the near end (the microphone) in place. `delay_ms` is the delay between handing
   a far-end frame to parley_apm_analyze_far and handing the near-end frame holding its echo here. Returns 0 or a
   negative WebRTC error code. */
int parley_apm_process_near(parley_apm *apm, int16_t *samples, size_t count, int delay_ms);

/* Reads the canceller's statistics. Returns 0 or a negative WebRTC error code. */
int parley_apm_get_metrics(parley_apm *apm, parley_apm_metrics *metrics);

/* A description of a WebRTC error code. */
const char *parley_apm_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif
