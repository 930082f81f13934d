# Keeps the sound libraries' own prints off the user's terminal: ALSA's error
# handler (Debian's libasound2-dev, found with pkg-config), JACK's error and
# info functions (libjack.so.0, opened at run time when it is installed) and
# C stdio's stdout (naudiodon printf()s on every stream open and close).
# Built by scripts/build-audio-quiet.sh.
{
  "targets": [
    {
      "target_name": "audio_quiet",
      "sources": ["audio_quiet.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "<!@(pkg-config --cflags alsa)"],
      "cflags_cc!": ["-fno-exceptions"],
      "libraries": ["<!@(pkg-config --libs alsa)", "-ldl"]
    }
  ]
}
