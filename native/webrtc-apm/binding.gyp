# The WebRTC audio processing addon (echo cancellation, noise suppression,
# gain control) over Debian's libwebrtc-audio-processing-dev 0.3, found with
# pkg-config. Built by scripts/build-apm.sh; see that script for the flags.
{
  "targets": [
    {
      "target_name": "webrtc_apm",
      "sources": ["webrtc_apm.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "<!@(pkg-config --cflags webrtc-audio-processing)"],
      "cflags_cc!": ["-fno-exceptions"],
      "libraries": ["<!@(pkg-config --libs webrtc-audio-processing)"]
    }
  ]
}
