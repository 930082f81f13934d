# The live speech recognition addon: a resident pocketsphinx decoder over
# Debian's libpocketsphinx-dev / libsphinxbase-dev 0.8+5prealpha, found with
# pkg-config. Built by scripts/build-pocketsphinx.sh; see that script.
{
  "targets": [
    {
      "target_name": "pocketsphinx_decoder",
      "sources": ["pocketsphinx_decoder.cc", "decoder.cc", "decoder_options.cc", "end_probability.cc", "sphinx_log.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "<!@(pkg-config --cflags pocketsphinx sphinxbase)"],
      "cflags_cc!": ["-fno-exceptions"],
      "libraries": ["<!@(pkg-config --libs pocketsphinx sphinxbase)"]
    }
  ]
}
