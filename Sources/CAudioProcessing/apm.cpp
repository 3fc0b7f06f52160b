// The C interface of parley_apm.h over webrtc::AudioProcessing (the 0.3 API of Debian's
// libwebrtc-audio-processing). No exception may cross into Swift: every entry point catches.
#include "parley_apm.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>

#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

struct parley_apm {
    std::unique_ptr<webrtc::AudioProcessing> apm;
    webrtc::AudioFrame far;
    webrtc::AudioFrame near;
    int rate = 16000;
    bool echo = false;
};

namespace {

void set_error(char *error, size_t size, const char *message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message);
}

bool fill(webrtc::AudioFrame &frame, const int16_t *samples, size_t count, int rate) {
    if (count != static_cast<size_t>(rate / 100) || count > webrtc::AudioFrame::kMaxDataSizeSamples) return false;
    frame.sample_rate_hz_ = rate;
    frame.num_channels_ = 1;
    frame.samples_per_channel_ = count;
    std::memcpy(frame.data_, samples, count * sizeof(int16_t));
    return true;
}

int check(int code, const char *what, char *error, size_t size) {
    if (code != webrtc::AudioProcessing::kNoError) {
        char message[160];
        std::snprintf(message, sizeof message, "%s failed: %s", what, parley_apm_error_string(code));
        set_error(error, size, message);
    }
    return code;
}

}  // namespace

extern "C" parley_apm *parley_apm_create(const parley_apm_config *config, char *error, size_t error_size) {
    if (!config) {
        set_error(error, error_size, "no configuration");
        return nullptr;
    }
    int rate = config->sample_rate_hz;
    if (rate != 8000 && rate != 16000 && rate != 32000 && rate != 48000) {
        set_error(error, error_size, "the sample rate must be 8000, 16000, 32000 or 48000 Hz");
        return nullptr;
    }
    try {
        webrtc::Config extra;
        extra.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(config->extended_filter != 0));
        extra.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(config->delay_agnostic != 0));
        // The experimental AGC drives an analog mic volume we do not control; keep the plain digital one.
        extra.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
        std::unique_ptr<parley_apm> handle(new parley_apm());
        handle->apm.reset(webrtc::AudioProcessing::Create(extra));
        if (!handle->apm) {
            set_error(error, error_size, "webrtc::AudioProcessing::Create returned nothing");
            return nullptr;
        }
        webrtc::AudioProcessing *apm = handle->apm.get();
        if (check(apm->Initialize(rate, rate, rate, webrtc::AudioProcessing::kMono, webrtc::AudioProcessing::kMono,
                                  webrtc::AudioProcessing::kMono), "Initialize", error, error_size)) return nullptr;
        if (check(apm->high_pass_filter()->Enable(config->high_pass_filter != 0), "high-pass filter", error, error_size))
            return nullptr;
        if (config->echo_cancellation) {
            webrtc::EchoCancellation *ec = apm->echo_cancellation();
            webrtc::EchoCancellation::SuppressionLevel level =
                config->suppression_level <= 0 ? webrtc::EchoCancellation::kLowSuppression
                : config->suppression_level == 1 ? webrtc::EchoCancellation::kModerateSuppression
                                                 : webrtc::EchoCancellation::kHighSuppression;
            if (check(ec->enable_drift_compensation(false), "drift compensation", error, error_size) ||
                check(ec->set_suppression_level(level), "suppression level", error, error_size) ||
                check(ec->enable_metrics(true), "echo metrics", error, error_size) ||
                check(ec->enable_delay_logging(true), "delay logging", error, error_size) ||
                check(ec->Enable(true), "echo cancellation", error, error_size))
                return nullptr;
        }
        if (config->noise_suppression >= 0) {
            webrtc::NoiseSuppression::Level level =
                config->noise_suppression == 0 ? webrtc::NoiseSuppression::kLow
                : config->noise_suppression == 1 ? webrtc::NoiseSuppression::kModerate
                : config->noise_suppression == 2 ? webrtc::NoiseSuppression::kHigh
                                                 : webrtc::NoiseSuppression::kVeryHigh;
            if (check(apm->noise_suppression()->set_level(level), "noise suppression level", error, error_size) ||
                check(apm->noise_suppression()->Enable(true), "noise suppression", error, error_size))
                return nullptr;
        }
        if (config->gain_control) {
            webrtc::GainControl *gc = apm->gain_control();
            int target = config->gain_target_dbfs < 0 ? 0 : config->gain_target_dbfs > 31 ? 31 : config->gain_target_dbfs;
            if (check(gc->set_mode(webrtc::GainControl::kAdaptiveDigital), "gain control mode", error, error_size) ||
                check(gc->set_target_level_dbfs(target), "gain control target", error, error_size) ||
                check(gc->enable_limiter(true), "gain control limiter", error, error_size) ||
                check(gc->Enable(true), "gain control", error, error_size))
                return nullptr;
        }
        handle->rate = rate;
        handle->echo = config->echo_cancellation != 0;
        return handle.release();
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    } catch (...) {
        set_error(error, error_size, "unknown C++ exception");
    }
    return nullptr;
}

extern "C" void parley_apm_destroy(parley_apm *apm) {
    try {
        delete apm;
    } catch (...) {
    }
}

extern "C" int parley_apm_analyze_far(parley_apm *apm, const int16_t *samples, size_t count) {
    if (!apm || !samples) return webrtc::AudioProcessing::kNullPointerError;
    if (!fill(apm->far, samples, count, apm->rate)) return webrtc::AudioProcessing::kBadDataLengthError;
    try {
        return apm->apm->ProcessReverseStream(&apm->far);
    } catch (...) {
        return webrtc::AudioProcessing::kUnspecifiedError;
    }
}

extern "C" int parley_apm_process_near(parley_apm *apm, int16_t *samples, size_t count, int delay_ms) {
    if (!apm || !samples) return webrtc::AudioProcessing::kNullPointerError;
    if (!fill(apm->near, samples, count, apm->rate)) return webrtc::AudioProcessing::kBadDataLengthError;
    try {
        if (apm->echo) {
            apm->apm->set_stream_delay_ms(delay_ms < 0 ? 0 : delay_ms);
        }
        int code = apm->apm->ProcessStream(&apm->near);
        // A delay out of range is clamped and reported as a warning; the frame is still processed.
        if (code != webrtc::AudioProcessing::kNoError && code != webrtc::AudioProcessing::kBadStreamParameterWarning)
            return code;
        std::memcpy(samples, apm->near.data_, count * sizeof(int16_t));
        return 0;
    } catch (...) {
        return webrtc::AudioProcessing::kUnspecifiedError;
    }
}

extern "C" int parley_apm_get_metrics(parley_apm *apm, parley_apm_metrics *metrics) {
    if (!apm || !metrics) return webrtc::AudioProcessing::kNullPointerError;
    metrics->erle_db = -100;
    metrics->erl_db = -100;
    metrics->delay_median_ms = -1;
    metrics->delay_std_ms = -1;
    metrics->fraction_poor_delays = -1;
    metrics->stream_has_echo = 0;
    if (!apm->echo) return 0;
    try {
        webrtc::EchoCancellation *ec = apm->apm->echo_cancellation();
        webrtc::EchoCancellation::Metrics m;
        if (ec->GetMetrics(&m) == webrtc::AudioProcessing::kNoError) {
            metrics->erle_db = static_cast<float>(m.echo_return_loss_enhancement.average);
            metrics->erl_db = static_cast<float>(m.echo_return_loss.average);
        }
        int median = -1, spread = -1;
        float poor = -1;
        if (ec->GetDelayMetrics(&median, &spread, &poor) == webrtc::AudioProcessing::kNoError) {
            metrics->delay_median_ms = median;
            metrics->delay_std_ms = spread;
            metrics->fraction_poor_delays = poor;
        }
        metrics->stream_has_echo = ec->stream_has_echo() ? 1 : 0;
        return 0;
    } catch (...) {
        return webrtc::AudioProcessing::kUnspecifiedError;
    }
}

extern "C" const char *parley_apm_error_string(int code) {
    switch (code) {
        case webrtc::AudioProcessing::kNoError: return "no error";
        case webrtc::AudioProcessing::kUnspecifiedError: return "unspecified error";
        case webrtc::AudioProcessing::kCreationFailedError: return "creation failed";
        case webrtc::AudioProcessing::kUnsupportedComponentError: return "unsupported component";
        case webrtc::AudioProcessing::kUnsupportedFunctionError: return "unsupported function";
        case webrtc::AudioProcessing::kNullPointerError: return "null pointer";
        case webrtc::AudioProcessing::kBadParameterError: return "bad parameter";
        case webrtc::AudioProcessing::kBadSampleRateError: return "bad sample rate";
        case webrtc::AudioProcessing::kBadDataLengthError: return "bad frame length (must be 10 ms)";
        case webrtc::AudioProcessing::kBadNumberChannelsError: return "bad number of channels";
        case webrtc::AudioProcessing::kFileError: return "file error";
        case webrtc::AudioProcessing::kStreamParameterNotSetError: return "stream parameter not set";
        case webrtc::AudioProcessing::kNotEnabledError: return "not enabled";
        case webrtc::AudioProcessing::kBadStreamParameterWarning: return "bad stream parameter (warning)";
        default: return "unknown error";
    }
}
