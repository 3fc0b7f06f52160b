// PulseAudio module.
